// A protocol whose connection pulls in a large client library (discord.js, matrix-js-sdk, Slack's SDK...) loads it on
// its first connect instead of at start-up: the config is read and validated, the state file opened and the api
// accounts listening before any of those libraries is parsed, and a config that uses no Discord account never loads
// discord.js. Until the first connect the account is down, which the core handles as for any account that is down
// (what is routed to it waits in its queues, and in the state file).
import type { Delivery, SendResult } from "../core/account.ts";
import { AccountFailure, type Connection, type ConnectionContext, type JoinRequest } from "../core/connection.ts";
import type { FileRequest } from "../core/files/download.ts";
import type { FileInfo } from "../core/files/file-info.ts";

type Create<A> = (account: A, context: ConnectionContext) => Connection;

export interface LazyOptions<A> {
  /**
   * Whether the real connection of `account` has `sendBatch`: the core reads it before the first connect, so it is
   * declared here. A connection that turns out otherwise fails its account at once (a mistake in the descriptor).
   */
  batches?(account: A): boolean;
}

/** `create` for a descriptor: a Connection that imports the real one (`load`) on its first connect and forwards to it. */
export function lazyConnection<A>(load: () => Promise<Create<A>>, options: LazyOptions<A> = {}): Create<A> {
  return (account, context) =>
    new LazyConnection(() => load().then((create) => create(account, context)), options.batches?.(account) ?? false);
}

/**
 * Whether `connection` has yet to load its protocol's client library (on its first connect): the bridge starts such
 * accounts after the ones that answer requests, so that loading a library never holds up a first answer.
 */
export function loadsOnFirstConnect(connection: Connection): boolean {
  return connection instanceof LazyConnection && connection.real === undefined;
}

/** The connection a lazy one forwards to once loaded, or `connection` itself when it is not lazy (tests look inside). */
export function realConnection(connection: Connection | undefined): Connection | undefined {
  return connection instanceof LazyConnection ? connection.real : connection;
}

/**
 * Every member of Connection, optional ones included, must be forwarded here: `Required<...>` makes a member added
 * to Connection later a compile error in this file, rather than one that lazily loaded protocols silently lack.
 * `sendBatch` is the exception: the core reads whether it exists, so it is defined only when the protocol batches.
 */
class LazyConnection implements Required<Omit<Connection, "sendBatch">>, Connection {
  #real: Connection | undefined;
  #loading: Promise<Connection> | undefined;
  /** stopAccepting called before the real connection existed: handed on when it does. */
  #stoppedAccepting: number | undefined;
  readonly sendBatch?: (deliveries: readonly Delivery[]) => Promise<string[]>;

  constructor(
    private readonly make: () => Promise<Connection>,
    private readonly batches: boolean,
  ) {
    if (batches) this.sendBatch = (deliveries) => this.#loaded().sendBatch!(deliveries);
  }

  get real(): Connection | undefined {
    return this.#real;
  }

  async connect(): Promise<void> {
    await this.#load();
    return this.#loaded().connect();
  }

  join(channel: JoinRequest): Promise<void> {
    return this.#loaded().join(channel);
  }

  send(delivery: Delivery): SendResult {
    return this.#loaded().send(delivery);
  }

  stopAccepting(retryAfterSeconds: number): void {
    if (this.#real) this.#real.stopAccepting?.(retryAfterSeconds);
    else this.#stoppedAccepting = retryAfterSeconds;
  }

  fileRequest(file: FileInfo): FileRequest | undefined | Promise<FileRequest | undefined> {
    return this.#real?.fileRequest?.(file);
  }

  async disconnect(): Promise<void> {
    await this.#real?.disconnect();
  }

  /** The real connection; the core calls join and send only after a connect resolved, so it exists by then. */
  #loaded(): Connection {
    if (this.#real === undefined) throw new Error("the connection was used before its first connect");
    return this.#real;
  }

  #load(): Promise<Connection> {
    this.#loading ??= this.make().then(
      (real) => {
        if ((real.sendBatch !== undefined) !== this.batches) {
          throw new AccountFailure(`the protocol's descriptor says batches: ${this.batches}, its connection differs`);
        }
        this.#real = real;
        if (this.#stoppedAccepting !== undefined) real.stopAccepting?.(this.#stoppedAccepting);
        return real;
      },
      (error: unknown) => {
        // A library that cannot be loaded will not load on the next attempt either.
        throw new AccountFailure(`cannot load the protocol's client library: ${(error as Error).message ?? error}`);
      },
    );
    return this.#loading;
  }
}
