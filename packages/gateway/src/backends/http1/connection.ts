import { connect, type Socket } from "node:net";
import { AnswerTooLarge, NETWORK_FAILURE, toUnreachable, UpstreamUnreachable } from "../network-errors.ts";
import type { Exchange, ExchangeHolder } from "./exchange.ts";
import { MalformedResponse } from "./malformed-response.ts";
import type { ResponseHead } from "./response-head.ts";
import { ResponseParser } from "./response-parser.ts";
import { writeThisTurn } from "./turn-writes.ts";

export interface ConnectionSettings {
  host: string;
  port: number;
  connectTimeoutMs: number;
  /** Until the response head is in, and again between body chunks (undici's headersTimeout and bodyTimeout). */
  requestTimeoutMs: number;
  /** How long an idle connection is kept when the backend gives no `Keep-Alive: timeout` hint. */
  keepAliveMs: number;
  keepAliveMaxMs: number;
  /** Taken off the backend's hint, so that we stop using a connection before the backend closes it. */
  keepAliveMarginMs: number;
  /** The most body bytes one response may bring; past it the connection is closed and the request fails. */
  answerLimitBytes: number;
}

/** What a connection tells its pool. */
export interface ConnectionOwner {
  /** The response was read and the connection can carry another request. */
  released(connection: Http1Connection): void;
  /** The connection is gone (it will not be used again). */
  closed(connection: Http1Connection): void;
}

/**
 * Small requests go out joined with their head, in one socket write (corking a head and a body into one writev went
 * through the stream's buffering twice) made with the other requests of this turn (turn-writes.ts); larger bodies
 * are written after it, at once.
 */
const JOIN_BODY_BELOW = 64 * 1024;

/** A request's head (ASCII when a string, else its latin1 bytes) and body (UTF-8 when a string) as one chunk. */
function joinRequest(head: string | Buffer, body: string | Buffer): string | Buffer {
  if (typeof head === "string" && typeof body === "string") return head + body;
  const headLength = head.length;
  const bodyLength = typeof body === "string" ? Buffer.byteLength(body) : body.length;
  const joined = Buffer.allocUnsafe(headLength + bodyLength);
  if (typeof head === "string") joined.write(head, 0, "latin1");
  else head.copy(joined, 0);
  if (typeof body === "string") joined.write(body, headLength, "utf8");
  else body.copy(joined, headLength);
  return joined;
}

// Where a connection is in its current exchange.
const CONNECTING = 0;
const AWAITING_HEAD = 1;
const READING_BODY = 2;
const IDLE = 3;

/** One keep-alive TCP connection to a backend, carrying one request at a time. */
export class Http1Connection implements ExchangeHolder {
  readonly #socket: Socket;
  readonly #parser: ResponseParser;
  #phase = CONNECTING;
  #exchange: Exchange | undefined;
  #head: ResponseHead | undefined;
  #closed = false;
  #readingPaused = false;
  #connectTimer: NodeJS.Timeout | undefined;
  /** Armed when a request is written; refreshed by each body chunk. Created once, reused by every request. */
  #requestTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #idleTimerMs = 0;
  /** How long this connection may stay idle, from the last response's keep-alive hint. */
  #idleMs = 0;
  /** Body bytes of the current response so far. */
  #bodyBytes = 0;

  constructor(
    private readonly owner: ConnectionOwner,
    private readonly settings: ConnectionSettings,
  ) {
    this.#parser = new ResponseParser({ head: (head) => this.#onHead(head), data: (chunk) => this.#onBody(chunk) });
    this.#socket = connect({
      host: settings.host,
      port: settings.port,
      noDelay: true,
      keepAlive: true,
      keepAliveInitialDelay: 60_000,
    });
    this.#connectTimer = setTimeout(() => this.#fail(connectTimeout()), settings.connectTimeoutMs);
    this.#socket.once("connect", () => this.#onConnect());
    this.#socket.on("data", (bytes: Buffer) => this.#onData(bytes));
    this.#socket.on("end", () => this.#onEnd());
    this.#socket.on("error", (error) => this.#fail(toUnreachable(error)));
    this.#socket.on("close", () => this.#fail(new UpstreamUnreachable(NETWORK_FAILURE.reset, false)));
  }

  /**
   * Whether an idle connection can take a request: the backend has not closed it, reset it or sent bytes nobody
   * asked for while it sat idle (each of those closes it as it arrives).
   */
  get usable(): boolean {
    return this.#phase === IDLE && this.#socketOpen();
  }

  /** Sends the exchange's request (once connected) and reads its response. */
  send(exchange: Exchange): void {
    this.#exchange = exchange;
    exchange.heldBy(this);
    if (this.#phase === CONNECTING) return;
    this.#write(exchange);
  }

  /** No request for now: wait for one, at most as long as the backend keeps idle connections. */
  rest(): void {
    this.#phase = IDLE;
    // Like undici's: an idle connection does not keep the process alive.
    this.#socket.unref();
    if (this.#idleTimer !== undefined && this.#idleTimerMs === this.#idleMs) {
      this.#idleTimer.refresh();
      return;
    }
    clearTimeout(this.#idleTimer);
    this.#idleTimerMs = this.#idleMs;
    this.#idleTimer = setTimeout(() => this.#phase === IDLE && this.close(), this.#idleMs).unref();
  }

  /** Closes the connection at once; a request on it fails with "connection reset". */
  close(): void {
    this.#fail(new UpstreamUnreachable(NETWORK_FAILURE.reset, false));
  }

  abandon(): void {
    this.#exchange = undefined;
    this.#parser.stop();
    this.#destroy();
  }

  pauseReading(): void {
    this.#readingPaused = true;
    this.#socket.pause();
  }

  resumeReading(): void {
    this.#readingPaused = false;
    this.#socket.resume();
    // Time spent paused is the caller's, not the backend's.
    if (this.#phase === READING_BODY) this.#requestTimer?.refresh();
  }

  #onConnect(): void {
    clearTimeout(this.#connectTimer);
    this.#connectTimer = undefined;
    if (this.#exchange !== undefined) this.#write(this.#exchange);
  }

  #write(exchange: Exchange): void {
    const socket = this.#socket;
    this.#phase = AWAITING_HEAD;
    this.#head = undefined;
    socket.ref();
    if (this.#readingPaused !== exchange.paused) {
      if (exchange.paused) this.pauseReading();
      else this.resumeReading();
    }
    const { head, body } = exchange.takeRequest();
    if (body.length < JOIN_BODY_BELOW) {
      writeThisTurn(socket, joinRequest(head, body));
    } else {
      socket.cork();
      socket.write(head);
      socket.write(body);
      socket.uncork();
    }
    if (this.#requestTimer === undefined) {
      this.#requestTimer = setTimeout(() => this.#onRequestTimer(), this.settings.requestTimeoutMs).unref();
    } else {
      this.#requestTimer.refresh();
    }
  }

  #onData(bytes: Buffer): void {
    const exchange = this.#exchange;
    if (exchange === undefined) {
      // Bytes while idle answer no request: the connection's state is unknown, so it is not used again.
      this.#destroy();
      return;
    }
    try {
      const excess = this.#parser.execute(bytes);
      if (this.#parser.done && this.#exchange === exchange) this.#complete(exchange, excess === 0);
    } catch (error) {
      // Malformed bytes, or a sink that threw: either way this connection's state is unknown.
      this.#fail(error instanceof MalformedResponse ? malformed(error) : toUnreachable(error));
    }
  }

  #onHead(head: ResponseHead): void {
    this.#head = head;
    this.#bodyBytes = 0;
    this.#phase = READING_BODY;
    this.#requestTimer?.refresh();
    this.#exchange?.start(head.statusCode, head.contentType ?? "application/json");
  }

  #onBody(chunk: Buffer): void {
    // Thrown inside the parser's call: #onData and #onEnd fail the request with it and close the connection.
    this.#bodyBytes += chunk.length;
    if (this.#bodyBytes > this.settings.answerLimitBytes) throw new AnswerTooLarge(this.settings.answerLimitBytes);
    this.#requestTimer?.refresh();
    this.#exchange?.data(chunk);
  }

  #onEnd(): void {
    const exchange = this.#exchange;
    try {
      if (exchange !== undefined && this.#parser.finish()) this.#complete(exchange, false);
      else this.close();
    } catch (error) {
      this.#fail(toUnreachable(error));
    }
  }

  #onRequestTimer(): void {
    const exchange = this.#exchange;
    if (exchange === undefined || this.#closed) return;
    if (this.#phase === AWAITING_HEAD) {
      this.#fail(new UpstreamUnreachable(NETWORK_FAILURE.headersTimeout, true));
    } else if (this.#phase === READING_BODY && !exchange.paused) {
      this.#fail(new UpstreamUnreachable(NETWORK_FAILURE.bodyTimeout, true));
    }
  }

  /** The response was read in full: the connection goes back to the pool when it can carry another one. */
  #complete(exchange: Exchange, cleanEnd: boolean): void {
    this.#exchange = undefined;
    const idleMs = this.#keepAliveMs();
    // A request still being written when its answer came (an early error) leaves the connection in an unknown state.
    if (cleanEnd && idleMs > 0 && this.#socket.writableLength === 0 && this.#socketOpen()) {
      this.#idleMs = idleMs;
      this.#parser.reset();
      this.#phase = IDLE;
      // An idle connection must read, so that the backend closing it is seen before it is used again.
      if (this.#readingPaused) this.resumeReading();
      this.owner.released(this);
    } else {
      this.#destroy();
    }
    exchange.end();
  }

  #socketOpen(): boolean {
    const socket = this.#socket;
    return !this.#closed && !socket.destroyed && socket.writable && !socket.readableEnded;
  }

  /** How long the connection may stay idle after this response (0: not at all), as undici computes it. */
  #keepAliveMs(): number {
    const head = this.#head;
    if (head === undefined || !head.keepAlive) return 0;
    const { keepAliveMs, keepAliveMaxMs, keepAliveMarginMs } = this.settings;
    if (head.keepAliveHintMs === undefined) return keepAliveMs;
    return Math.max(0, Math.min(head.keepAliveHintMs - keepAliveMarginMs, keepAliveMaxMs));
  }

  /** Ends the connection; the request on it, if any, fails with `error`. */
  #fail(error: Error): void {
    const exchange = this.#exchange;
    this.#exchange = undefined;
    this.#parser.stop();
    this.#destroy();
    exchange?.fail(error);
  }

  #destroy(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#connectTimer);
    clearTimeout(this.#requestTimer);
    clearTimeout(this.#idleTimer);
    this.#socket.destroy();
    this.owner.closed(this);
  }
}

function connectTimeout(): UpstreamUnreachable {
  return new UpstreamUnreachable(NETWORK_FAILURE.connectTimeout, true);
}

function malformed(error: MalformedResponse): UpstreamUnreachable {
  return new UpstreamUnreachable(`invalid HTTP response: ${error.message}`, false);
}
