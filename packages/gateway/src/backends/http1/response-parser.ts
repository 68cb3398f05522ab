import { ChunkedBodyDecoder } from "./chunked-body.ts";
import { MAX_HEAD_BYTES } from "./limits.ts";
import { MalformedResponse } from "./malformed-response.ts";
import { parseResponseHead, type ResponseHead } from "./response-head.ts";

/** What the parser reports of one response: its final head (interim 1xx heads are skipped), then its body. */
export interface ResponseEvents {
  head(head: ResponseHead): void;
  data(chunk: Buffer): void;
}

// The parser's states.
const HEAD = 0;
const LENGTH_BODY = 1;
const CHUNKED_BODY = 2;
const CLOSE_BODY = 3;
const DONE = 4;
const STOPPED = 5;

const HEAD_END = Buffer.from("\r\n\r\n");
const CR = 13;
const LF = 10;

/**
 * An incremental parser for the responses on one HTTP/1.1 connection, one response at a time, fed the bytes as they
 * arrive in whatever segments TCP gives. Body bytes are passed on as views of the segments, never copied.
 */
export class ResponseParser {
  #state = HEAD;
  /** The start of a head that a segment boundary cut. */
  #partialHead: Buffer | undefined;
  #remaining = 0;
  readonly #chunked: ChunkedBodyDecoder;
  /**
   * The last head parsed, and its text: a backend sends the same head again and again on a connection (the Date in it
   * changes once a second), so an identical one is compared, not parsed again.
   */
  #lastHeadText = "";
  #lastHead: ResponseHead | undefined;

  constructor(private readonly events: ResponseEvents) {
    this.#chunked = new ChunkedBodyDecoder((chunk) => events.data(chunk));
  }

  /** The response has been read to its end. */
  get done(): boolean {
    return this.#state === DONE;
  }

  /** Prepares for the next response on the connection. */
  reset(): void {
    this.#state = HEAD;
    this.#partialHead = undefined;
  }

  /** Ignores the rest of this response (the request was abandoned in an event). */
  stop(): void {
    this.#state = STOPPED;
    this.#chunked.stop();
  }

  /**
   * Parses the next bytes of the response. Returns how many bytes follow the response's end (bytes the backend sent
   * that belong to no request). Throws MalformedResponse.
   */
  execute(bytes: Buffer): number {
    let at = 0;
    while (at < bytes.length || this.#state === HEAD) {
      switch (this.#state) {
        case HEAD: {
          const next = this.#readHead(bytes, at);
          if (next === -1) return 0;
          at = next;
          break;
        }
        case LENGTH_BODY: {
          const end = Math.min(bytes.length, at + this.#remaining);
          this.#remaining -= end - at;
          if (this.#remaining === 0) this.#state = DONE;
          this.events.data(at === 0 && end === bytes.length ? bytes : bytes.subarray(at, end));
          at = end;
          break;
        }
        case CHUNKED_BODY:
          at = this.#chunked.execute(bytes, at);
          if (this.#chunked.done) this.#state = DONE;
          break;
        case CLOSE_BODY:
          this.events.data(at === 0 ? bytes : bytes.subarray(at));
          return 0;
        case DONE:
          return bytes.length - at;
        default:
          return 0;
      }
    }
    return this.#state === DONE ? bytes.length - at : 0;
  }

  /** The backend closed the connection: true when that ends the response (a body delimited by the close). */
  finish(): boolean {
    if (this.#state === CLOSE_BODY) this.#state = DONE;
    return this.#state === DONE;
  }

  /** Reads a head from `bytes` at `at`; returns the offset after it, or -1 when more bytes are needed. */
  #readHead(segment: Buffer, offset: number): number {
    let bytes = segment;
    let at = offset;
    if (this.#partialHead !== undefined) {
      bytes = Buffer.concat([this.#partialHead, segment.subarray(offset)]);
      at = 0;
    }
    // Empty lines before a status line are ignored (RFC 9112 §2.2).
    while (bytes[at] === CR && bytes[at + 1] === LF) at += 2;
    const end = bytes.indexOf(HEAD_END, at);
    if (end === -1 || end - at > MAX_HEAD_BYTES) {
      if (bytes.length - at > MAX_HEAD_BYTES) throw new MalformedResponse("response head too large");
      this.#partialHead = at === bytes.length ? undefined : bytes.subarray(at);
      return -1;
    }
    const consumedOfSegment = this.#partialHead === undefined ? end + 4 : end + 4 - this.#partialHead.length + offset;
    this.#partialHead = undefined;
    const head = this.#parseHead(bytes.toString("latin1", at, end));
    if (head.statusCode < 200) {
      if (head.statusCode === 101) throw new MalformedResponse("unexpected protocol switch");
      return consumedOfSegment;
    }
    this.#startBody(head);
    this.events.head(head);
    return consumedOfSegment;
  }

  #parseHead(text: string): ResponseHead {
    if (this.#lastHead !== undefined && text === this.#lastHeadText) return this.#lastHead;
    const head = parseResponseHead(text);
    this.#lastHeadText = text;
    this.#lastHead = head;
    return head;
  }

  #startBody(head: ResponseHead): void {
    const framing = head.framing;
    if (framing.kind === "none" || (framing.kind === "length" && framing.length === 0)) {
      this.#state = DONE;
    } else if (framing.kind === "length") {
      this.#state = LENGTH_BODY;
      this.#remaining = framing.length;
    } else if (framing.kind === "chunked") {
      this.#state = CHUNKED_BODY;
      this.#chunked.reset();
    } else {
      this.#state = CLOSE_BODY;
    }
  }
}
