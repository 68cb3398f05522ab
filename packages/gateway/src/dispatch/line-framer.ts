import type { StreamFramer } from "./stream-framer.ts";

const LF = 0x0a;

/**
 * Frames a newline-delimited JSON stream (Ollama's): complete lines only, a line split across reads held until its
 * end arrives. A read that ends at a line end and follows one (the usual case) passes through as the same bytes.
 */
export class LineFramer implements StreamFramer {
  #pending: Buffer | undefined;

  push(chunk: Buffer): Buffer {
    const bytes = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk]);
    const end = bytes.lastIndexOf(LF) + 1;
    this.#pending = end < bytes.length ? Buffer.from(bytes.subarray(end)) : undefined;
    return end === bytes.length ? bytes : bytes.subarray(0, end);
  }

  /** A last line without its newline gets one. */
  finish(): string {
    const rest = this.#pending;
    this.#pending = undefined;
    if (rest === undefined || rest.toString("utf8").trim() === "") return "";
    return `${rest.toString("utf8")}\n`;
  }
}
