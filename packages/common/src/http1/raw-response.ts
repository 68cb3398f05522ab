import type { OutgoingHttpHeader, OutgoingHttpHeaders } from "node:http";
import { STATUS_CODES, validateHeaderName, validateHeaderValue } from "node:http";
import type { Socket } from "node:net";
import { httpDate } from "./http-date.ts";
import { flushJoinedWrite, type JoinedWriteDone, keepForJoinedWrite } from "./joined-writes.ts";
import { LazyEmitter } from "./lazy-emitter.ts";
import { type HeaderValue, headerLines, PreparedHeaders } from "./prepared-headers.ts";
import { SLAB_JOIN_MAX_BYTES, slabSlice } from "./write-slab.ts";

/**
 * A body is copied into one buffer with its head or chunk frame when the whole fits in a slice of the write slab
 * (write-slab.ts); a larger one is corked around the body (one writev as well), since copying it would cost more
 * than the writev saves.
 */
const JOIN_BELOW_BYTES = SLAB_JOIN_MAX_BYTES;

/** What the raw ingress needs to know of a response's end. */
export interface ResponseEnd {
  /** The whole response is in the socket's hands: the next pipelined answer may be written. */
  handedOver?(response: RawResponse): void;
  /** The response was written in full and the connection may carry the next request. */
  finished(response: RawResponse, keepAlive: boolean): void;
}

/** Where the prepared lines sit among the headers: a key no header name can be (node refuses a CR in a name). */
const PREPARED_SLOT = "\r";

/** A header set one by one: the name as given, its value, and the name in lower case (the map's key). */
type HeaderEntry = readonly [name: string, value: HeaderValue, key: string];

/** The lines node:http adds to a kept-alive answer, for the timeout given last (one per service in practice). */
let keepAliveLines = "";
let keepAliveLinesSeconds = -1;

function keepAliveLinesFor(seconds: number): string {
  if (seconds !== keepAliveLinesSeconds) {
    keepAliveLinesSeconds = seconds;
    keepAliveLines = `Connection: keep-alive\r\nKeep-Alive: timeout=${seconds}\r\n`;
  }
  return keepAliveLines;
}

const NO_HEADERS: readonly (HeaderEntry | PreparedHeaders)[] = [];

type PendingWrite = [before: string, body: string | Buffer | undefined, after: string, last: boolean];

/** Told once an answer is written in full (RawResponse.onFinished), with the number it was given. */
export type FinishListener = (response: RawResponse, startedAt: number) => void;

/** An answer with nothing left to write is done a tick later, as a write's callback would be (no closure per answer). */
function writeDoneOf(response: RawResponse): void {
  response.writeDone();
}

/**
 * A response written straight on the connection: the part of ServerResponse the model routes use, with node:http's
 * wire behaviour (its Date, Connection and Keep-Alive headers, Content-Length when the whole body comes with end()
 * before any head, chunked encoding otherwise; 204 and 304 without a body; "finish" then "close" once written, "close"
 * alone when the client went away first). Header names and values are checked as node checks them, so nothing a
 * caller puts in a header can end the head early. The answers to pipelined requests leave in their order: one whose
 * turn has not come yet (an earlier answer is not all written) keeps its writes until it has (takeTurn). Header lines
 * that repeat can come prepared (PreparedHeaders: checked and rendered once); the head is then byte for byte what the
 * same headers set one by one give. An EventEmitter whose listener table is made by its first listener
 * (lazy-emitter.ts): most answers get none (RawResponse.onFinished instead).
 */
export class RawResponse extends LazyEmitter implements JoinedWriteDone {
  statusCode = 200;
  /** False once the gateway is stopping or the client asked to close (the connection ends after this answer). */
  shouldKeepAlive: boolean;
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  /** By lower-case name (the prepared lines, if any, under PREPARED_SLOT): the name as given and its value. */
  /**
   * Made by the first header set: a response lives from its request's arrival until its answer is written (the bridge
   * holds a turn's posts until their commit), and a map made at once was kept that long for nothing.
   */
  #headerMap: Map<string, HeaderEntry | PreparedHeaders> | undefined;
  #prepared: PreparedHeaders | undefined;
  #head = "";
  #chunked = false;
  #hasBody = true;
  #destroyed = false;
  /** False until the answers before this one are in the socket's hands (takeTurn). */
  #hasTurn: boolean;
  /** Writes kept until this answer's turn on the connection (made by the first of them). */
  #pending: PendingWrite[] | undefined;
  /** The last write's callback for a socket write of its own (made when one is needed: a joined write needs none). */
  #writtenCallback: ((error?: Error | null) => void) | undefined;
  #finishListener: FinishListener | undefined;
  #startedAt = 0;

  constructor(
    readonly socket: Socket,
    keepAlive: boolean,
    private readonly keepAliveSeconds: number,
    private readonly onEnd: ResponseEnd,
    hasTurn = true,
  ) {
    super();
    this.shouldKeepAlive = keepAlive;
    this.#hasTurn = hasTurn;
  }

  #headers(): Map<string, HeaderEntry | PreparedHeaders> {
    this.#headerMap ??= new Map();
    return this.#headerMap;
  }

  /** The answers before this one are in the socket's hands: what this one kept is written now. */
  takeTurn(): void {
    if (this.#hasTurn) return;
    this.#hasTurn = true;
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    for (const [before, body, after, last] of pending) this.#write(before, body, after, last);
  }

  /**
   * `listener` is called once the answer is written in full, after the "finish" listeners and before "close", with
   * `startedAt`: one listener (an access log line) without an emitter's bookkeeping or a closure per answer.
   */
  onFinished(listener: FinishListener, startedAt: number): void {
    this.#finishListener = listener;
    this.#startedAt = startedAt;
  }

  get destroyed(): boolean {
    return this.#destroyed || this.socket.destroyed || this.socket.writableEnded;
  }

  setHeader(name: string, value: HeaderValue): this {
    if (this.headersSent) throw headersSentError("set");
    // node:http's own checks, with its errors: nothing in a header can end the head early.
    validateHeaderName(name);
    for (const item of Array.isArray(value) ? value : [value]) validateHeaderValue(name, String(item));
    const key = name.toLowerCase();
    if (this.#prepared?.entries.has(key)) this.#unpack();
    this.#headers().set(key, [name, value, key]);
    return this;
  }

  getHeader(name: string): HeaderValue | undefined {
    const key = name.toLowerCase();
    const entry = this.#headerMap?.get(key);
    if (entry !== undefined && !(entry instanceof PreparedHeaders)) return entry[1];
    return this.#prepared?.entries.get(key)?.[1];
  }

  /**
   * Adds lines checked and rendered beforehand, as a setHeader of each would (in their order, after the headers set
   * so far). One set of prepared lines is kept whole; what would change one of its lines takes it apart first.
   */
  setPreparedHeaders(prepared: PreparedHeaders): this {
    if (this.headersSent) throw headersSentError("set");
    let clash = this.#prepared !== undefined;
    const headers = this.#headerMap;
    if (!clash && headers !== undefined && headers.size > 0) {
      for (const key of prepared.entries.keys()) if (headers.has(key)) clash = true;
    }
    if (clash) {
      // Rare: set one by one, which keeps node's order (a replaced header stays where it was).
      for (const [name, value] of prepared.entries.values()) this.setHeader(name, value);
      return this;
    }
    this.#prepared = prepared;
    this.#headers().set(PREPARED_SLOT, prepared);
    return this;
  }

  /** Prepared lines as single headers again, in their place, so that one of them can be replaced. */
  #unpack(): void {
    const map = this.#headers();
    const headers = [...map];
    map.clear();
    this.#prepared = undefined;
    for (const [key, entry] of headers) {
      if (!(entry instanceof PreparedHeaders)) map.set(key, entry);
      else for (const [lower, [name, value]] of entry.entries) map.set(lower, [name, value, lower]);
    }
  }

  /** `prepared` comes first, as if set before `headers` (see setPreparedHeaders). */
  writeHead(
    statusCode: number,
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
    prepared?: PreparedHeaders,
  ): this {
    if (this.headersSent) throw headersSentError("write");
    if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 999) {
      throw new RangeError(`Invalid status code: ${statusCode}`);
    }
    this.statusCode = statusCode;
    if (prepared !== undefined) this.setPreparedHeaders(prepared);
    if (Array.isArray(headers)) {
      for (let i = 0; i + 1 < headers.length; i += 2) this.setHeader(String(headers[i]), headers[i + 1] as string);
    } else if (headers) {
      for (const name in headers) {
        const value = headers[name];
        if (value !== undefined) this.setHeader(name, value);
      }
    }
    this.#storeHead(false, undefined);
    return this;
  }

  /** False when the connection's buffer is full: wait for "drain" (the ingress passes the socket's on). */
  write(chunk: string | Buffer): boolean {
    if (this.writableEnded) throw new Error("write after end");
    if (!this.headersSent) this.#storeHead(false, undefined);
    return this.#send(chunk, false);
  }

  end(chunk?: string | Buffer): this {
    if (this.writableEnded) return this;
    if (!this.headersSent) this.#storeHead(true, chunk);
    this.writableEnded = true;
    this.#send(chunk, true);
    return this;
  }

  destroy(): this {
    this.#destroyed = true;
    this.socket.destroy();
    return this;
  }

  /** The client went away before the answer was written: "close" alone (writableFinished stays false). */
  abandon(): void {
    this.#destroyed = true;
    this.emit("close");
  }

  #send(chunk: string | Buffer | undefined, last: boolean): boolean {
    const socket = this.socket;
    if (this.#destroyed || socket.destroyed || socket.writableEnded) return false;
    const head = this.#head;
    this.#head = "";
    const body = this.#hasBody ? chunk : undefined;
    if (!this.#chunked) return this.#write(head, body, "", last);
    const size = body === undefined ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.length;
    const trailer = last ? "0\r\n\r\n" : "";
    if (size === 0) return this.#write(head + trailer, undefined, "", last);
    return this.#write(`${head}${size.toString(16)}\r\n`, body, `\r\n${trailer}`, last);
  }

  /**
   * Writes `before`, `body` and `after` (heads and chunk frames: latin1) with one socket write: joined into one buffer
   * when the body is small, corked around the body otherwise. A string body goes as node:http sends one, in UTF-8.
   */
  #write(before: string, body: string | Buffer | undefined, after: string, last: boolean): boolean {
    if (!this.#hasTurn) {
      this.#pending ??= [];
      this.#pending.push([before, body, after, last]);
      return true;
    }
    const room = this.#writeNow(before, body, after, last);
    if (last) this.onEnd.handedOver?.(this);
    return room;
  }

  #writeNow(before: string, body: string | Buffer | undefined, after: string, last: boolean): boolean {
    const socket = this.socket;
    if (body === undefined || typeof body === "string") {
      const text = before + (body ?? "") + after;
      if (text.length > 0) {
        return keepForJoinedWrite(socket, text, last ? this : undefined) || socket.write(text, this.#doneIf(last));
      }
      if (last) process.nextTick(writeDoneOf, this);
      return true;
    }
    const done = this.#doneIf(last);
    // Bytes are not joined: what is kept goes first.
    flushJoinedWrite(socket);
    const total = before.length + body.length + after.length;
    if (total < JOIN_BELOW_BYTES) {
      const joined = slabSlice(total);
      joined.write(before, 0, "latin1");
      body.copy(joined, before.length);
      joined.write(after, before.length + body.length, "latin1");
      return socket.write(joined, done);
    }
    socket.cork();
    if (before.length > 0) socket.write(before, "latin1");
    let room: boolean;
    if (after.length === 0) room = socket.write(body, done);
    else {
      socket.write(body);
      room = socket.write(after, "latin1", done);
    }
    socket.uncork();
    return room;
  }

  #doneIf(last: boolean): ((error?: Error | null) => void) | undefined {
    if (!last) return undefined;
    this.#writtenCallback ??= (error) => this.writeDone(error);
    return this.#writtenCallback;
  }

  /**
   * The last write is done (its callback, or the joined write's): written in full unless the connection failed
   * meanwhile (then abandon() follows).
   */
  writeDone(error?: Error | null): void {
    if (error || this.#destroyed || this.writableFinished) return;
    this.writableFinished = true;
    this.emit("finish");
    this.#finishListener?.(this, this.#startedAt);
    this.emit("close");
    this.onEnd.finished(this, this.shouldKeepAlive);
  }

  /** The head as node:http writes it; `whole` when `body` is all the body, known before anything is written. */
  #storeHead(whole: boolean, body: string | Buffer | undefined): void {
    const status = this.statusCode;
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "unknown"}\r\n`;
    let hasLength = false;
    let hasDate = false;
    let connection: string | undefined;
    // Values, not [key, entry] pairs: no pair made per header.
    for (const entry of this.#headerMap?.values() ?? NO_HEADERS) {
      if (entry instanceof PreparedHeaders) {
        head += entry.lines;
        continue;
      }
      const [name, value, key] = entry;
      if (key === "content-length") hasLength = true;
      else if (key === "date") hasDate = true;
      else if (key === "connection") connection = String(value);
      head += headerLines(name, value);
    }
    const prepared = this.#prepared;
    if (prepared !== undefined) {
      const entries = prepared.entries;
      if (entries.has("content-length")) hasLength = true;
      if (entries.has("date")) hasDate = true;
      const preparedConnection = entries.get("connection");
      if (preparedConnection !== undefined) connection = String(preparedConnection[1]);
    }
    if (!hasDate) head += `Date: ${httpDate()}\r\n`;
    if (connection !== undefined) {
      if (/(?:^|,)\s*close\s*(?:,|$)/i.test(connection)) this.shouldKeepAlive = false;
    } else if (this.shouldKeepAlive) {
      head += keepAliveLinesFor(this.keepAliveSeconds);
    } else {
      head += "Connection: close\r\n";
    }
    this.#hasBody = status !== 204 && status !== 304 && status >= 200;
    if (!this.#hasBody || hasLength) {
      // No body, or its length given by the caller.
    } else if (whole) {
      head += `Content-Length: ${body === undefined ? 0 : Buffer.byteLength(body)}\r\n`;
    } else {
      head += "Transfer-Encoding: chunked\r\n";
      this.#chunked = true;
    }
    this.#head = `${head}\r\n`;
    this.headersSent = true;
  }
}

function headersSentError(what: "set" | "write"): Error {
  return Object.assign(new Error(`Cannot ${what} headers after they are sent to the client`), {
    code: "ERR_HTTP_HEADERS_SENT",
  });
}
