// Keeps one account's connection up: connects, joins its channels, and after a reported disconnect reconnects with
// capped exponential backoff and jitter, joining every channel again. An AccountFailure (or a `failed` report) is
// terminal. Each transition is logged once: a disconnect, the first failed attempt and any new reason, the
// reconnection (with how many attempts it took); the attempts in between are debug lines.
import { thrownMessage } from "@switchboard/common";
import type { Logger } from "pino";
import { type BackoffPolicy, backoffDelay } from "./backoff.ts";
import { type Clock, type TimerHandle, withTimeout } from "./clock.ts";
import { AccountFailure, type Connection, type JoinRequest } from "./connection.ts";

export type ConnectionState = "idle" | "connecting" | "connected" | "waiting" | "failed" | "stopped";

/** A read-only snapshot of the connection's life, for a status page. */
export interface ConnectionStatus {
  state: ConnectionState;
  /** Connected at least once: a `connecting` state is then a reconnect attempt. */
  wasUp: boolean;
  /** Failed attempts since the account was last up. */
  failedAttempts: number;
  /** While down: the disconnect's or the last failed attempt's reason; when failed, why it is for good. */
  reason?: string;
  /** While waiting to reconnect: how long until the next attempt starts. */
  nextAttemptInMs?: number;
}

export interface SupervisorOptions {
  /** The account id, for log lines and the start-up error. */
  account: string;
  logger: Logger;
  clock: Clock;
  random: () => number;
  reconnect: BackoffPolicy;
  /** An attempt's connect (or a join) that has not settled after this long is abandoned and retried. */
  connectTimeoutMs: number;
  channels: readonly JoinRequest[];
  /** Connected and joined: the outbound queues may send. */
  onUp(): void;
  /** No longer connected: the outbound queues hold their messages. */
  onDown(): void;
  /** A reconnect attempt begins (counted by the metrics). */
  onReconnectAttempt?(): void;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

function reasonText(reason: unknown): string {
  return thrownMessage(reason);
}

export class Supervisor {
  readonly #connection: Connection;
  readonly #options: SupervisorOptions;
  #state: ConnectionState = "idle";
  /** Failed attempts since the last time the account was up. */
  #failures = 0;
  #downSince = 0;
  #lastLoggedReason: string | undefined;
  /** Why the account is down (see ConnectionStatus.reason). */
  #downReason: string | undefined;
  #wasUp = false;
  #timer: TimerHandle | undefined;
  #nextAttemptAt: number | undefined;
  /** A `failed` report received while an attempt is in progress; the attempt ends as failed. */
  #failedDuringAttempt: unknown;
  /** A `disconnected` report received while an attempt is in progress (the link dropped during the joins). */
  #droppedDuringAttempt: unknown;

  constructor(connection: Connection, options: SupervisorOptions) {
    this.#connection = connection;
    this.#options = options;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get isUp(): boolean {
    return this.#state === "connected";
  }

  get status(): ConnectionStatus {
    const status: ConnectionStatus = { state: this.#state, wasUp: this.#wasUp, failedAttempts: this.#failures };
    if (this.#state !== "connected" && this.#downReason !== undefined) status.reason = this.#downReason;
    if (this.#timer !== undefined && this.#nextAttemptAt !== undefined) {
      status.nextAttemptInMs = Math.max(0, this.#nextAttemptAt - this.#options.clock.now());
    }
    return status;
  }

  /**
   * The first connect. Resolves once connected and joined, or after a first attempt that failed in a way worth
   * retrying (the account then keeps trying in the background while its queues hold messages). Rejects, with a
   * message naming the account, when the account failed for good.
   */
  async start(): Promise<void> {
    const { logger, account } = this.#options;
    const outcome = await this.#attempt();
    if (outcome.kind === "up") {
      logger.info({ account }, `${account} connected`);
      this.#markUp();
      this.#options.onUp();
    } else if (outcome.kind === "retry") {
      this.#downSince = this.#options.clock.now();
      this.#lastLoggedReason = outcome.reason;
      this.#downReason = outcome.reason;
      logger.warn({ account, reason: outcome.reason }, `${account} cannot connect: ${outcome.reason}; retrying`);
      this.#scheduleReconnect();
    } else if (outcome.kind === "failed") {
      this.#state = "failed";
      this.#downReason = outcome.reason;
      throw new Error(`[${account}] ${outcome.reason}`);
    }
  }

  /** The protocol reports that the link dropped. */
  reportDisconnected(reason: unknown): void {
    if (this.#state === "connecting") {
      this.#droppedDuringAttempt = reason ?? "disconnected";
      return;
    }
    if (this.#state !== "connected") return;
    const { logger, account } = this.#options;
    const text = reasonText(reason);
    this.#downSince = this.#options.clock.now();
    this.#lastLoggedReason = text;
    this.#downReason = text;
    logger.warn({ account, reason: text }, `${account} disconnected: ${text}; reconnecting`);
    this.#goDown();
    this.#failures = 0;
    void this.#releaseThen(() => this.#scheduleReconnect());
  }

  /** The protocol reports that retrying cannot help. */
  reportFailed(reason: unknown): void {
    if (this.#state === "connecting") {
      this.#failedDuringAttempt = reason ?? "failed";
      return;
    }
    if (this.#state !== "connected" && this.#state !== "waiting") return;
    if (this.#state === "connected") this.#goDown();
    this.#cancelTimer();
    this.#fail(reasonText(reason));
    void this.#release();
  }

  async stop(): Promise<void> {
    const wasActive = this.#state === "connected" || this.#state === "connecting" || this.#state === "waiting";
    if (this.#state === "connected") this.#options.onDown();
    this.#state = "stopped";
    this.#cancelTimer();
    if (wasActive) await this.#release();
  }

  #markUp(): void {
    this.#wasUp = true;
    this.#downReason = undefined;
  }

  #goDown(): void {
    this.#state = "waiting";
    this.#options.onDown();
  }

  #fail(reason: string): void {
    this.#state = "failed";
    this.#downReason = reason;
    const { logger, account } = this.#options;
    logger.error({ account, reason }, `${account} failed: ${reason}; it stays disconnected until restarted`);
  }

  /** One connect + joins. */
  async #attempt(): Promise<
    { kind: "up" } | { kind: "retry"; reason: string } | { kind: "failed"; reason: string } | { kind: "stopped" }
  > {
    const { clock, connectTimeoutMs, channels } = this.#options;
    this.#state = "connecting";
    this.#failedDuringAttempt = undefined;
    this.#droppedDuringAttempt = undefined;
    const timeout = (what: string) => () => new Error(`${what} did not finish within ${connectTimeoutMs} ms`);
    try {
      await withTimeout(clock, this.#connection.connect(), connectTimeoutMs, timeout("connecting"));
      for (const channel of channels) {
        if (this.#failedDuringAttempt !== undefined || this.#droppedDuringAttempt !== undefined) break;
        await withTimeout(
          clock,
          this.#connection.join(channel),
          connectTimeoutMs,
          timeout(`joining ${channel.channel}`),
        );
      }
    } catch (error) {
      if (this.#stopped()) return { kind: "stopped" };
      await this.#release();
      if (this.#stopped()) return { kind: "stopped" };
      this.#state = "waiting";
      if (this.#failedDuringAttempt !== undefined) {
        return { kind: "failed", reason: reasonText(this.#failedDuringAttempt) };
      }
      const reason = reasonText(error);
      return error instanceof AccountFailure ? { kind: "failed", reason } : { kind: "retry", reason };
    }
    if (this.#stopped()) {
      // Stopped while connecting: what the connect opened after stop's disconnect must be closed too.
      await this.#release();
      return { kind: "stopped" };
    }
    if (this.#failedDuringAttempt !== undefined) {
      await this.#release();
      this.#state = "waiting";
      return { kind: "failed", reason: reasonText(this.#failedDuringAttempt) };
    }
    if (this.#droppedDuringAttempt !== undefined) {
      await this.#release();
      this.#state = "waiting";
      return { kind: "retry", reason: reasonText(this.#droppedDuringAttempt) };
    }
    this.#state = "connected";
    return { kind: "up" };
  }

  #scheduleReconnect(): void {
    if (this.#state === "stopped" || this.#state === "failed") return;
    const { clock, random, reconnect } = this.#options;
    const wait = backoffDelay(this.#failures, reconnect, random);
    this.#state = "waiting";
    this.#nextAttemptAt = clock.now() + wait;
    this.#timer = clock.setTimeout(() => {
      this.#timer = undefined;
      void this.#reconnect();
    }, wait);
  }

  async #reconnect(): Promise<void> {
    const { logger, account, clock } = this.#options;
    this.#options.onReconnectAttempt?.();
    const outcome = await this.#attempt();
    switch (outcome.kind) {
      case "up": {
        const downMs = Math.round(clock.now() - this.#downSince);
        const attempts = this.#failures + 1;
        logger.info({ account, attempts, downMs }, `${account} reconnected (attempt ${attempts}, down ${downMs} ms)`);
        this.#failures = 0;
        this.#lastLoggedReason = undefined;
        this.#markUp();
        this.#options.onUp();
        return;
      }
      case "retry":
        this.#failures++;
        this.#downReason = outcome.reason;
        if (outcome.reason !== this.#lastLoggedReason) {
          this.#lastLoggedReason = outcome.reason;
          logger.warn(
            { account, attempt: this.#failures, reason: outcome.reason },
            `${account} reconnect failing: ${outcome.reason}; still retrying`,
          );
        } else {
          logger.debug({ account, attempt: this.#failures, reason: outcome.reason }, "reconnect attempt failed");
        }
        this.#scheduleReconnect();
        return;
      case "failed":
        this.#fail(outcome.reason);
        return;
      case "stopped":
        return;
    }
  }

  async #releaseThen(next: () => void): Promise<void> {
    await this.#release();
    next();
  }

  /** Lets the protocol free what its connection holds; its errors are only worth a debug line. */
  async #release(): Promise<void> {
    try {
      await this.#connection.disconnect();
    } catch (error) {
      this.#options.logger.debug({ account: this.#options.account, err: error }, "disconnect failed");
    }
  }

  /** A method, not a field test, because the state changes across the awaits of an attempt. */
  #stopped(): boolean {
    return this.#state === "stopped";
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) this.#options.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
