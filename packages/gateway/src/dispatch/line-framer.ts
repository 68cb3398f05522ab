import type { StreamFramer } from "./stream-framer.ts";

const LF = 0x0a;
const NOTHING = Buffer.alloc(0);

/**
 * Frames a newline-delimited JSON stream (Ollama's): complete lines only, a line split across reads held until its
 * end arrives. A read that ends at a line end and follows one (the usual case) passes through as the same bytes. The
 * pieces of an unfinished line are kept as they came and joined once, when its end arrives: a line that arrives in
 * many reads costs its length, not its length squared.
 */
export class LineFramer implements StreamFramer {
  #pending: Buffer[] = [];
  #pendingLength = 0;

  push(chunk: Buffer): Buffer {
    const lastLf = chunk.lastIndexOf(LF);
    if (lastLf === -1) {
      if (chunk.length > 0) this.#hold(chunk);
      return NOTHING;
    }
    const end = lastLf + 1;
    let lines = end === chunk.length ? chunk : chunk.subarray(0, end);
    if (this.#pendingLength > 0) {
      lines = Buffer.concat([...this.#pending, lines], this.#pendingLength + end);
      this.#pending = [];
      this.#pendingLength = 0;
    }
    if (end < chunk.length) this.#hold(chunk.subarray(end));
    return lines;
  }

  /** A last line without its newline gets one. */
  finish(): string {
    const rest = Buffer.concat(this.#pending, this.#pendingLength).toString("utf8");
    this.#pending = [];
    this.#pendingLength = 0;
    if (rest.trim() === "") return "";
    return `${rest}\n`;
  }

  /** Copied: the read's buffer may be a slice of a larger one that should not be kept alive. */
  #hold(piece: Buffer): void {
    this.#pending.push(Buffer.from(piece));
    this.#pendingLength += piece.length;
  }
}
