import { ClientGone, type ResponseSink, type UpstreamCall } from "../upstream-call.ts";

/** What an exchange asks of whoever holds it: the pool while it waits, then its connection. */
export interface ExchangeHolder {
  /** The caller aborted: stop at once (a connection is destroyed, a queued request leaves the queue). */
  abandon(exchange: Exchange): void;
  pauseReading(): void;
  resumeReading(): void;
}

/**
 * One request and its response: the caller's control (UpstreamCall) and the sink's contract, which is kept here
 * whatever the connection does: start once with the final status, data, then end or error exactly once, nothing after.
 */
export class Exchange implements UpstreamCall {
  #request: { head: string | Buffer; body: string | Buffer } | undefined;
  #holder: ExchangeHolder | undefined;
  #aborted = false;
  #finished = false;
  #paused = false;

  constructor(
    private readonly sink: ResponseSink,
    head: string | Buffer,
    body: string | Buffer,
  ) {
    this.#request = { head, body };
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  /** The caller asked for backpressure and has not released it. */
  get paused(): boolean {
    return this.#paused;
  }

  get finished(): boolean {
    return this.#finished;
  }

  abort(): void {
    if (this.#aborted || this.#finished) return;
    this.#aborted = true;
    this.#holder?.abandon(this);
    this.fail(new ClientGone());
  }

  pause(): void {
    if (this.#finished || this.#paused) return;
    this.#paused = true;
    this.#holder?.pauseReading();
  }

  resume(): void {
    if (this.#finished || !this.#paused) return;
    this.#paused = false;
    this.#holder?.resumeReading();
  }

  /** The pool or connection now responsible for this exchange. */
  heldBy(holder: ExchangeHolder): void {
    this.#holder = holder;
  }

  /** The request's bytes, handed over once to be written (the exchange then stops holding the body). */
  takeRequest(): { head: string | Buffer; body: string | Buffer } {
    const request = this.#request;
    if (request === undefined) throw new Error("the request was already written");
    this.#request = undefined;
    return request;
  }

  start(statusCode: number, contentType: string): void {
    if (!this.#finished) this.sink.start(statusCode, contentType);
  }

  data(chunk: Buffer): void {
    if (!this.#finished) this.sink.data(chunk);
  }

  end(): void {
    if (this.#finished) return;
    this.#finish();
    this.sink.end();
  }

  fail(error: Error): void {
    if (this.#finished) return;
    this.#finish();
    this.sink.error(this.#aborted ? new ClientGone() : error);
  }

  #finish(): void {
    this.#finished = true;
    this.#holder = undefined;
    this.#request = undefined;
  }
}
