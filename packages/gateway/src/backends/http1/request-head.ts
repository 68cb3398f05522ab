import type { CallIds } from "../types.ts";

/** undici's rule for a header value (from Node's _http_common): HTAB, visible ASCII, space and obs-text. */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** undici's rule for a request path: no space, no control character, nothing beyond latin1. */
const INVALID_PATH = /[^\u0021-\u00ff]/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const NON_ASCII = /[\u0080-\uffff]/;
/** Headers this client writes itself, or whose meaning would change the framing it relies on. */
const OWN_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "expect",
]);

/** Request lines kept per writer at most. */
const MAX_KEPT_STARTS = 32;

/** Whether a header of these is one this client may write: a token name, not one of its own, a valid value. */
const writable = (name: string, value: string) =>
  TOKEN.test(name) && !OWN_HEADERS.has(name.toLowerCase()) && !INVALID_VALUE.test(value);

/** A request that cannot be written: undici refused the same values with "invalid <name> header". */
class InvalidRequestHeader extends Error {
  override readonly name = "InvalidRequestHeader";
}

/**
 * Writes the heads of the POST requests to one backend: the backend's own headers (content type, credentials) are
 * validated and rendered once; per request only the path, the ids and the length are added.
 */
export class RequestHeadWriter {
  /** `host: ...` and the backend's headers, each line ended by CRLF. */
  readonly #fixedLines: string;
  readonly #fixedAscii: boolean;
  readonly #fixedError: string | undefined;
  /** The request line and fixed lines of each path asked for (a backend is called on a handful), checked once. */
  readonly #starts = new Map<string, { lines: string; ascii: boolean }>();

  constructor(
    host: string,
    private readonly basePath: string,
    headers: Record<string, string>,
  ) {
    let lines = `host: ${host}\r\n`;
    let error: string | undefined;
    for (const [name, value] of Object.entries(headers)) {
      if (!writable(name, value)) error ??= `invalid ${name} header`;
      lines += `${name}: ${value}\r\n`;
    }
    this.#fixedLines = lines;
    this.#fixedAscii = !NON_ASCII.test(lines);
    this.#fixedError = error;
  }

  /**
   * The head of `POST <basePath><path>` with the ids, `extra` headers and the body's length: a string when it is
   * ASCII (it can be written together with a UTF-8 body), else its latin1 bytes. Throws InvalidRequestHeader for a
   * value undici would have refused.
   */
  head(path: string, ids: CallIds, contentLength: number, extra?: Readonly<Record<string, string>>): string | Buffer {
    if (this.#fixedError !== undefined) throw new InvalidRequestHeader(this.#fixedError);
    const start = this.#start(path);
    if (INVALID_VALUE.test(ids.requestId)) throw new InvalidRequestHeader("invalid x-request-id header");
    let head = `${start.lines}x-request-id: ${ids.requestId}\r\n`;
    let ascii = start.ascii && !NON_ASCII.test(ids.requestId);
    if (ids.traceparent !== undefined) {
      if (INVALID_VALUE.test(ids.traceparent)) throw new InvalidRequestHeader("invalid traceparent header");
      head += `traceparent: ${ids.traceparent}\r\n`;
      ascii &&= !NON_ASCII.test(ids.traceparent);
    }
    if (extra !== undefined) {
      for (const [name, value] of Object.entries(extra)) {
        if (!writable(name, value)) throw new InvalidRequestHeader(`invalid ${name} header`);
        head += `${name}: ${value}\r\n`;
        ascii &&= !NON_ASCII.test(value);
      }
    }
    head += `content-length: ${contentLength}\r\n\r\n`;
    return ascii ? head : Buffer.from(head, "latin1");
  }

  /** `POST <basePath><path> HTTP/1.1` and the fixed lines, and whether they are ASCII; throws for an invalid path. */
  #start(path: string): { lines: string; ascii: boolean } {
    let start = this.#starts.get(path);
    if (start === undefined) {
      const target = this.basePath + path;
      if (INVALID_PATH.test(target)) throw new InvalidRequestHeader("invalid request path");
      const lines = `POST ${target} HTTP/1.1\r\n${this.#fixedLines}`;
      start = { lines, ascii: this.#fixedAscii && !NON_ASCII.test(target) };
      // Paths are the gateway's own (a few per backend type); the bound only keeps a surprise from growing it.
      if (this.#starts.size < MAX_KEPT_STARTS) this.#starts.set(path, start);
    }
    return start;
  }
}
