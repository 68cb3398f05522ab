import { UpstreamUnreachable } from "../network-errors.ts";
import { type ConnectionOwner, type ConnectionSettings, Http1Connection } from "./connection.ts";
import type { Exchange, ExchangeHolder } from "./exchange.ts";

export interface PoolSettings extends ConnectionSettings {
  /** Connections open at once; more requests wait in order for one. Unbounded when undefined (undici's default). */
  maxConnections: number | undefined;
}

/** Keep-alive connections to one origin: an idle one is reused, else a new one is opened, else the request waits. */
export class Http1Pool implements ConnectionOwner, ExchangeHolder {
  /** Most recently used last: reusing it first lets the others time out when load drops. */
  readonly #idle: Http1Connection[] = [];
  readonly #waiting: Exchange[] = [];
  #open = 0;
  #closing: { done: Promise<void>; resolve: () => void } | undefined;

  constructor(private readonly settings: PoolSettings) {}

  dispatch(exchange: Exchange): void {
    if (this.#closing !== undefined) {
      queueMicrotask(() => exchange.fail(new UpstreamUnreachable("the backend's client is closed", false)));
      return;
    }
    const idle = this.#takeIdle();
    if (idle !== undefined) idle.send(exchange);
    else if (this.#open < (this.settings.maxConnections ?? Number.POSITIVE_INFINITY)) this.#connect(exchange);
    else {
      exchange.heldBy(this);
      this.#waiting.push(exchange);
    }
  }

  /** A waiting request was aborted. */
  abandon(exchange: Exchange): void {
    const index = this.#waiting.indexOf(exchange);
    if (index !== -1) this.#waiting.splice(index, 1);
  }

  // A waiting request has nothing to read yet: its pause is applied when a connection takes it.
  pauseReading(): void {}
  resumeReading(): void {}

  released(connection: Http1Connection): void {
    const next = this.#waiting.shift();
    if (next !== undefined) connection.send(next);
    else if (this.#closing !== undefined) connection.close();
    else {
      this.#idle.push(connection);
      connection.rest();
    }
  }

  closed(connection: Http1Connection): void {
    this.#open--;
    const index = this.#idle.indexOf(connection);
    if (index !== -1) this.#idle.splice(index, 1);
    const next = this.#waiting.shift();
    if (next !== undefined) this.#connect(next);
    else if (this.#closing !== undefined && this.#open === 0) this.#closing.resolve();
  }

  /**
   * Like undici's Pool.close(): no new requests; idle connections close now, requests in flight or waiting run to
   * their end, and the promise resolves when the last connection has closed.
   */
  close(): Promise<void> {
    if (this.#closing === undefined) {
      let resolve = () => {};
      const done = new Promise<void>((settle) => {
        resolve = settle;
      });
      this.#closing = { done, resolve };
      for (const connection of this.#idle.splice(0)) connection.close();
      if (this.#open === 0) resolve();
    }
    return this.#closing.done;
  }

  #takeIdle(): Http1Connection | undefined {
    for (let connection = this.#idle.pop(); connection !== undefined; connection = this.#idle.pop()) {
      if (connection.usable) return connection;
      connection.close();
    }
    return undefined;
  }

  #connect(exchange: Exchange): void {
    this.#open++;
    new Http1Connection(this, this.settings).send(exchange);
  }
}
