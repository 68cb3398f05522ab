import { MAX_CHUNK_LINE_BYTES, MAX_HEAD_BYTES } from "./limits.ts";
import { MalformedResponse } from "./malformed-response.ts";
import { checkFieldLine } from "./response-head.ts";

/** A chunk-size line: at most 12 hex digits (under 256 TB), then optional extensions, which are ignored. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what extensions may not hold
const SIZE_LINE = /^([0-9a-fA-F]{1,12})[ \t]*(?:;[^\x00-\x08\x0a-\x1f\x7f]*)?$/;
const CR = 13;
const LF = 10;

// The decoder's states (plain numbers: the loop compares them for every piece of the body).
const SIZE = 0;
const DATA = 1;
const DATA_CR = 2;
const DATA_LF = 3;
const TRAILERS = 4;
const DONE = 5;
const STOPPED = 6;

/** Decodes a chunked body (RFC 9112 §7.1) as its bytes arrive, passing each piece of data on without copying. */
export class ChunkedBodyDecoder {
  #state = SIZE;
  #remaining = 0;
  /** A size or trailer line that a segment boundary cut. */
  #line = "";
  #trailerBytes = 0;

  constructor(private readonly onData: (chunk: Buffer) => void) {}

  get done(): boolean {
    return this.#state === DONE;
  }

  reset(): void {
    this.#state = SIZE;
    this.#remaining = 0;
    this.#line = "";
    this.#trailerBytes = 0;
  }

  /** Stops decoding at once (the request was abandoned in the data callback). */
  stop(): void {
    this.#state = STOPPED;
  }

  /** Decodes `bytes` from `offset`; returns the offset after the last byte used (the body's end once done). */
  execute(bytes: Buffer, offset: number): number {
    let at = offset;
    while (at < bytes.length) {
      switch (this.#state) {
        case SIZE: {
          const line = this.#readLine(bytes, at, MAX_CHUNK_LINE_BYTES);
          if (line === undefined) return bytes.length;
          at = line.next;
          const size = SIZE_LINE.exec(line.text);
          if (size === null) throw new MalformedResponse("invalid chunk size line");
          this.#remaining = Number.parseInt(size[1]!, 16);
          this.#state = this.#remaining === 0 ? TRAILERS : DATA;
          break;
        }
        case DATA: {
          const end = Math.min(bytes.length, at + this.#remaining);
          this.#remaining -= end - at;
          if (this.#remaining === 0) this.#state = DATA_CR;
          const piece = at === 0 && end === bytes.length ? bytes : bytes.subarray(at, end);
          at = end;
          this.onData(piece);
          break;
        }
        case DATA_CR:
          if (bytes[at++] !== CR) throw new MalformedResponse("chunk data longer than its size");
          this.#state = DATA_LF;
          break;
        case DATA_LF:
          if (bytes[at++] !== LF) throw new MalformedResponse("chunk data longer than its size");
          this.#state = SIZE;
          break;
        case TRAILERS: {
          const line = this.#readLine(bytes, at, MAX_HEAD_BYTES - this.#trailerBytes);
          if (line === undefined) return bytes.length;
          this.#trailerBytes += line.next - at;
          at = line.next;
          if (line.text === "") {
            this.#state = DONE;
            return at;
          }
          checkFieldLine(line.text);
          break;
        }
        default:
          return at;
      }
    }
    return at;
  }

  /** A CRLF-terminated line (without its CRLF) and the offset after it, or undefined when it is not complete yet. */
  #readLine(bytes: Buffer, at: number, limit: number): { text: string; next: number } | undefined {
    const lf = bytes.indexOf(LF, at);
    const partEnd = lf === -1 ? bytes.length : lf;
    if (this.#line.length + (partEnd - at) > limit) throw new MalformedResponse("chunk line or trailers too long");
    const part = bytes.toString("latin1", at, partEnd);
    if (lf === -1) {
      this.#line += part;
      return undefined;
    }
    const line = this.#line + part;
    this.#line = "";
    if (line.charCodeAt(line.length - 1) !== CR) throw new MalformedResponse("line not ended by CRLF");
    return { text: line.slice(0, -1), next: lf + 1 };
  }
}
