// An incremental HTTP/1.1 response parser for the load generator: status, Content-Length or chunked bodies, the
// moment the first body byte arrived, and the decoded body (to check that a stream really ended with [DONE]).

export interface ParsedResponse {
  status: number;
  /** The decoded body (chunk framing removed). */
  body: Buffer;
  /** Whether the server asked to close the connection after this response. */
  close: boolean;
}

const HEADER_END = Buffer.from("\r\n\r\n");
const CRLF = Buffer.from("\r\n");

export class ResponseParser {
  #pending: Buffer = Buffer.alloc(0);
  #bodyStart = -1;
  #status = 0;
  #close = false;
  #contentLength = -1;
  #chunked = false;
  #scan = 0;
  #pieces: Buffer[] = [];

  /** Whether any body byte has arrived for the response being parsed. */
  get bodyStarted(): boolean {
    return this.#bodyStart >= 0 && this.#pending.length > this.#bodyStart;
  }

  get headersDone(): boolean {
    return this.#bodyStart >= 0;
  }

  /**
   * Feeds bytes; returns the completed response, or undefined while it is incomplete. Throws on a malformed response
   * or on bytes after the response (the client never pipelines, so there must be none).
   */
  push(data: Buffer): ParsedResponse | undefined {
    this.#pending = this.#pending.length === 0 ? data : Buffer.concat([this.#pending, data]);
    if (this.#bodyStart < 0 && !this.#parseHead()) return undefined;
    const end = this.#chunked ? this.#scanChunks() : this.#fixedEnd();
    if (end < 0) return undefined;
    if (end !== this.#pending.length) throw new Error("unexpected bytes after the response");
    const body = this.#chunked
      ? Buffer.concat(this.#pieces)
      : this.#pending.subarray(this.#bodyStart, this.#bodyStart + this.#contentLength);
    const response = { status: this.#status, body, close: this.#close };
    this.reset();
    return response;
  }

  reset(): void {
    this.#pending = Buffer.alloc(0);
    this.#bodyStart = -1;
    this.#status = 0;
    this.#close = false;
    this.#contentLength = -1;
    this.#chunked = false;
    this.#scan = 0;
    this.#pieces = [];
  }

  #parseHead(): boolean {
    const end = this.#pending.indexOf(HEADER_END);
    if (end < 0) return false;
    const head = this.#pending.toString("latin1", 0, end).toLowerCase();
    if (!head.startsWith("http/1.1 ") && !head.startsWith("http/1.0 ")) throw new Error("not an HTTP/1.x response");
    this.#status = Number.parseInt(head.slice(9, 12), 10);
    this.#close = /\r\nconnection:\s*close/.test(head);
    this.#chunked = /\r\ntransfer-encoding:[^\r]*chunked/.test(head);
    const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
    this.#contentLength = length?.[1] ? Number.parseInt(length[1], 10) : this.#chunked ? -1 : 0;
    this.#bodyStart = end + 4;
    this.#scan = this.#bodyStart;
    return true;
  }

  #fixedEnd(): number {
    const end = this.#bodyStart + this.#contentLength;
    return this.#pending.length >= end ? end : -1;
  }

  /** Advances over complete chunks; returns the end of the message once the last chunk and trailers arrived. */
  #scanChunks(): number {
    for (;;) {
      const lineEnd = this.#pending.indexOf(CRLF, this.#scan);
      if (lineEnd < 0) return -1;
      const size = Number.parseInt(this.#pending.toString("latin1", this.#scan, lineEnd), 16);
      if (!Number.isFinite(size)) throw new Error("bad chunk size");
      if (size === 0) {
        // The last chunk, then either the final CRLF at once or trailer fields ending with an empty line.
        if (this.#pending.length < lineEnd + 4) return -1;
        if (this.#pending[lineEnd + 2] === 13 && this.#pending[lineEnd + 3] === 10) return lineEnd + 4;
        const trailersEnd = this.#pending.indexOf(HEADER_END, lineEnd + 2);
        return trailersEnd < 0 ? -1 : trailersEnd + 4;
      }
      const next = lineEnd + 2 + size + 2;
      if (this.#pending.length < next) return -1;
      this.#pieces.push(this.#pending.subarray(lineEnd + 2, lineEnd + 2 + size));
      this.#scan = next;
    }
  }
}
