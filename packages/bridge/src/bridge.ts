// Assembles a running bridge from a validated config: one supervised account per account in use (its connection
// made by its protocol's descriptor), the router between them, start and stop.
import type { Logger } from "pino";
import type { BridgeConfig } from "./config/types.ts";
import type { MessageSink } from "./core/account.ts";
import type { Membership } from "./core/connection.ts";
import { Router } from "./core/router.ts";
import { type CoreTuning, SupervisedAccount } from "./core/supervised-account.ts";

export interface BridgeOptions {
  logger: Logger;
  debug?: boolean;
  /** The core's clock, randomness and internal limits (tests); defaults in core/supervised-account.ts. */
  tuning?: Partial<CoreTuning>;
}

export class Bridge {
  readonly accounts = new Map<string, SupervisedAccount>();
  readonly router: Router;
  readonly #logger: Logger;
  #started: SupervisedAccount[] = [];

  constructor(
    readonly config: BridgeConfig,
    options: BridgeOptions,
  ) {
    this.#logger = options.logger;
    const debug = options.debug ?? false;
    // Accounts hand what they receive to the router, which needs the accounts first: a forwarding sink breaks the knot.
    const sink: MessageSink = { receive: (source, message) => this.router.receive(source, message) };
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
        new SupervisedAccount(account, { sink, logger: this.#logger, debug, memberships, tuning: options.tuning }),
      );
    }
    this.router = new Router(config, this.accounts, { logger: this.#logger, debug });
  }

  /**
   * Connects the accounts one after the other, in config order (so an account's "listening" line means the ones
   * before it are up too). If one fails for good, the ones started are stopped and its error (naming the account) is
   * rethrown; an account that cannot connect yet keeps retrying in the background while the others run.
   */
  async start(): Promise<void> {
    for (const warning of this.config.warnings) this.#logger.warn(warning);
    for (const account of this.accounts.values()) {
      this.#started.push(account);
      try {
        await account.start();
      } catch (error) {
        await this.stop();
        throw error;
      }
    }
    const names = this.config.gateways.map((g) => g.name).join(", ");
    this.#logger.info(`bridge started: ${this.accounts.size} account(s), gateway(s): ${names}`);
  }

  /** Accounts whose stop has begun and not finished yet (what a shutdown would cut). */
  readonly stillStopping = new Set<string>();

  async stop(): Promise<void> {
    const started = this.#started.splice(0).reverse();
    await Promise.allSettled(
      started.map(async (account) => {
        this.stillStopping.add(account.id);
        try {
          await account.stop();
        } finally {
          this.stillStopping.delete(account.id);
        }
      }),
    );
  }
}
