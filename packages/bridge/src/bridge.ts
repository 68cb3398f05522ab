// Assembles a running bridge from a validated config: one supervised account per account in use (its connection
// made by its protocol's descriptor), the router between them, start and the steps of a stop (refuse new work,
// drain the outbound queues, stop; or cut). With [general] StatusAddress, the status endpoint (src/status/) observes
// the core and is served from start to the end of stop.
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { loadsOnFirstConnect } from "./accounts/lazy-connection.ts";
import type { BridgeConfig } from "./config/types.ts";
import type { MessageSink, RouteResult } from "./core/account.ts";
import type { Membership } from "./core/connection.ts";
import { FileRelay } from "./core/files/file-relay.ts";
import { fileRelaySettings } from "./core/files/settings.ts";
import { replayQueues } from "./core/queue-replay.ts";
import { Router } from "./core/router.ts";
import { NO_STATE, type StateStore } from "./core/state-store.ts";
import { type CoreTuning, SupervisedAccount } from "./core/supervised-account.ts";
import type { StatusService } from "./status/status-service.ts";

/**
 * How long after the accounts that answer requests (the api, the status endpoint) are up the accounts that load a
 * client library start: the first requests, often already waiting for the port to open, are answered before the
 * event loop spends a block of time loading and compiling irc-framework, discord.js and the like.
 */
const LIBRARY_ACCOUNTS_DELAY_MS = 100;

export interface BridgeOptions {
  logger: Logger;
  debug?: boolean;
  /** The core's clock, randomness and internal limits (tests); defaults in core/supervised-account.ts. */
  tuning?: Partial<CoreTuning>;
  /** Queued messages, the id map and api buffers kept across restarts (core/state-store.ts); none by default. */
  state?: StateStore;
  /** The status endpoint's class, for a config with StatusAddress (`Bridge.load` imports it only then). */
  statusService?: typeof StatusService;
}

export class Bridge {
  /**
   * A bridge for `config`, loading the status endpoint (prom-client and its dependencies) only when StatusAddress
   * asks for it: a bridge without one starts without parsing them.
   */
  static async load(config: BridgeConfig, options: BridgeOptions): Promise<Bridge> {
    const statusService =
      config.general.StatusAddress === ""
        ? undefined
        : (options.statusService ?? (await import("./status/status-service.ts")).StatusService);
    return new Bridge(config, { ...options, statusService });
  }

  readonly accounts = new Map<string, SupervisedAccount>();
  readonly router: Router;
  readonly #logger: Logger;
  readonly #state: StateStore;
  readonly #status: StatusService | undefined;
  readonly #files: FileRelay;
  #started: SupervisedAccount[] = [];
  /** False once a stop began: what accounts receive then is not routed (the queues are draining). */
  #accepting = true;
  #refusedWhileStopping = 0;
  #undelivered = 0;
  /** Accounts whose stop has begun and not finished yet. */
  readonly #stillStopping = new Set<string>();

  constructor(
    readonly config: BridgeConfig,
    options: BridgeOptions,
  ) {
    this.#logger = options.logger;
    this.#state = options.state ?? NO_STATE;
    const state = this.#state;
    state.reportFailuresTo(this.#logger);
    const debug = options.debug ?? false;
    const Status = options.statusService;
    if (config.general.StatusAddress !== "" && Status === undefined) {
      throw new Error(
        "[general] StatusAddress is set: create the bridge with Bridge.load, which loads the status endpoint",
      );
    }
    this.#status =
      config.general.StatusAddress === "" || Status === undefined
        ? undefined
        : new Status(config, { logger: this.#logger, accounts: () => this.accounts.values() });
    const observer = this.#status?.metrics;
    // Accounts hand what they receive to the router, which needs the accounts first: a forwarding sink breaks the knot.
    const sink: MessageSink = {
      receive: (source, message) => (this.#accepting ? this.router.receive(source, message) : this.#refuse()),
    };
    for (const [id, account] of config.accounts) {
      const memberships: Membership[] = config.gateways.flatMap((gateway) =>
        gateway.channels
          .filter((channel) => channel.account === id)
          .map((channel) => ({
            gateway: gateway.name,
            channel: channel.channel,
            direction: channel.direction,
            options: channel.options,
          })),
      );
      this.accounts.set(
        id,
        new SupervisedAccount(account, {
          sink,
          logger: this.#logger,
          debug,
          memberships,
          tuning: options.tuning,
          observer,
          state,
          configPath: config.path,
        }),
      );
    }
    this.#files = new FileRelay(fileRelaySettings(config.general), this.#logger);
    const files = this.#files;
    this.router = new Router(config, this.accounts, { logger: this.#logger, debug, observer, state, files });
  }

  /**
   * Connects the accounts one after the other: first those whose code is loaded (the api accounts, which listen),
   * then, LIBRARY_ACCOUNTS_DELAY_MS later, those that load a client library on their first connect; each group in
   * config order. An account's "listening" line thus never waits for an IRC server's answer or a library's loading.
   * If one fails for good, the ones started are stopped and its error (naming the account) is rethrown; an account
   * that cannot connect yet keeps retrying in the background while the others run. A stop that begins meanwhile
   * ends the start: no further account is started. `answering` is called once the accounts that answer requests
   * (and the status endpoint) are up, before the others start.
   */
  async start(hooks: { answering?(): void } = {}): Promise<void> {
    for (const warning of this.config.warnings) this.#logger.warn(warning);
    // What the last run left queued goes out first, as each destination connects.
    replayQueues(this.#state, this.router, this.#logger);
    // First, so that /health shows the accounts connecting.
    await this.#status?.start();
    const accounts = [...this.accounts.values()];
    const loading = accounts.filter((account) => loadsOnFirstConnect(account.connection));
    const answering = accounts.filter((account) => !loading.includes(account));
    for (const account of answering) {
      if (!(await this.#startAccount(account))) return;
    }
    hooks.answering?.();
    if (loading.length > 0 && (answering.length > 0 || this.#status !== undefined)) {
      await sleep(LIBRARY_ACCOUNTS_DELAY_MS);
    }
    for (const account of loading) {
      if (!(await this.#startAccount(account))) return;
    }
    if (!this.#accepting) return;
    const names = this.config.gateways.map((g) => g.name).join(", ");
    this.#logger.info(`bridge started: ${this.accounts.size} account(s), gateway(s): ${names}`);
  }

  /** Its first connect; false when a stop has begun (nothing more is started then). */
  async #startAccount(account: SupervisedAccount): Promise<boolean> {
    if (!this.#accepting) return false;
    this.#started.push(account);
    try {
      await account.start();
    } catch (error) {
      await this.stop();
      throw error;
    }
    return true;
  }

  /**
   * The first step of a stop: nothing received from now on is routed, and each account refuses new inbound work
   * (the api answers 503 with Retry-After) while staying connected so that its queues can drain.
   */
  stopAccepting(retryAfterSeconds: number): void {
    this.#accepting = false;
    for (const account of this.#started) account.stopAccepting(retryAfterSeconds);
  }

  /** Resolves once every account's outbound queues are empty (see SupervisedAccount.drained). Never rejects. */
  async drain(): Promise<void> {
    await Promise.all(this.#started.map((account) => account.drained()));
  }

  /** Accounts with messages still queued or a stop not finished: what cutting now would cut. */
  busyAccounts(): string[] {
    return [...this.accounts.values()]
      .filter((account) => account.queued > 0 || this.#stillStopping.has(account.id))
      .map((account) => account.id);
  }

  /** Queued messages a stop or a cut dropped instead of delivering. */
  get undelivered(): number {
    return this.#undelivered;
  }

  /** Drops whatever is still queued, at once (logged per destination). */
  cut(): void {
    this.#state.keepQueued();
    for (const account of this.accounts.values()) this.#undelivered += account.closeQueues();
    this.#logRefused();
  }

  /** Stops the accounts; anything still queued is dropped (logged per destination). Call drain() first to deliver it. */
  async stop(): Promise<void> {
    this.#accepting = false;
    // What the queues still hold is not lost: it stays in the state file for the next start.
    this.#state.keepQueued();
    const started = this.#started.splice(0).reverse();
    await Promise.allSettled(
      started.map(async (account) => {
        this.#stillStopping.add(account.id);
        try {
          this.#undelivered += await account.stop();
        } finally {
          this.#stillStopping.delete(account.id);
        }
      }),
    );
    await this.#status?.close();
    this.#logRefused();
    this.#state.close();
    this.#files.close();
  }

  #refuse(): RouteResult {
    this.#refusedWhileStopping++;
    return { deliveries: 0, dropped: "stopping" };
  }

  #logRefused(): void {
    if (this.#refusedWhileStopping === 0) return;
    this.#logger.warn(
      { refused: this.#refusedWhileStopping },
      `${this.#refusedWhileStopping} message(s) received while stopping were not relayed`,
    );
    this.#refusedWhileStopping = 0;
  }
}
