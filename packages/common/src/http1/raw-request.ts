import type { Socket } from "node:net";
import { LazyEmitter } from "./lazy-emitter.ts";

const EMPTY = Buffer.alloc(0);

/**
 * A request the raw ingress read in full (head and body): the part of IncomingMessage the routes served there use.
 * The body is given to the first reader as a readable stream gives it: one "data" event once a listener is attached
 * or resume() is called, then "end"; pause() holds what has not been emitted yet. A route that knows it is served
 * here may take it whole instead (`body`). An EventEmitter whose listener table is made by its first listener
 * (lazy-emitter.ts): a post served whole gets none.
 */
export class RawRequest extends LazyEmitter {
  readonly method = "POST";
  /** The whole body has arrived (it has: the ingress reads it before serving). */
  readonly complete = true;
  #body: Buffer | undefined;
  #paused = true;
  #ended = false;
  #flushScheduled = false;

  constructor(
    readonly url: string,
    readonly headers: Record<string, string>,
    body: Buffer,
    readonly socket: Socket,
  ) {
    super();
    this.#body = body;
  }

  /** The whole body, for a route that reads no stream (a view of the connection's read: used at once, not kept). */
  get body(): Buffer {
    return this.#body ?? EMPTY;
  }

  get destroyed(): boolean {
    return this.socket.destroyed;
  }

  // biome-ignore lint/suspicious/noExplicitAny: EventEmitter's own listener type
  override on(event: string | symbol, listener: (...args: any[]) => void): this {
    super.on(event, listener);
    if (event === "data") this.resume();
    return this;
  }

  pause(): this {
    this.#paused = true;
    return this;
  }

  resume(): this {
    this.#paused = false;
    if (!this.#flushScheduled && !this.#ended) {
      this.#flushScheduled = true;
      process.nextTick(() => this.#flush());
    }
    return this;
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#paused) return;
    const body = this.#body;
    if (body !== undefined) {
      this.#body = undefined;
      this.emit("data", body);
      if (this.#paused) return;
    }
    if (!this.#ended) {
      this.#ended = true;
      this.emit("end");
    }
  }
}
