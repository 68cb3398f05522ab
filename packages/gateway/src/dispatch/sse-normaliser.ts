import { StringDecoder } from "node:string_decoder";

const DONE = /(^|\n)data: ?\[DONE\]\n/;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Re-frames an upstream SSE byte stream into complete LF-terminated events: CRLF and CR become LF, an event is emitted
 * only once its blank line has arrived, and `[DONE]` is remembered so the relay can guarantee one at the end.
 * A chunk that is exactly a run of complete LF events (the usual case) is passed through as the same bytes.
 */
export class SseNormaliser {
  readonly #decoder = new StringDecoder("utf8");
  #pending = "";
  #sawCr = false;
  /** Nothing is buffered: no partial event, no partial character, no trailing CR. */
  #clean = true;
  done = false;

  /** Feeds upstream bytes; returns the complete events they finish (empty when none). */
  push(chunk: Buffer): Buffer | string {
    const length = chunk.length;
    if (this.#clean && length >= 2 && chunk[length - 1] === LF && chunk[length - 2] === LF && !chunk.includes(CR)) {
      if (!this.done && (chunk.includes("data: [DONE]") || chunk.includes("data:[DONE]"))) {
        this.done = DONE.test(chunk.toString("latin1"));
      }
      return chunk;
    }
    let text = this.#decoder.write(chunk);
    if (this.#sawCr && text.startsWith("\n")) text = text.slice(1); // the \n of a CRLF split across chunks
    this.#sawCr = text.endsWith("\r");
    if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
    const buffered = this.#pending + text;
    const end = buffered.lastIndexOf("\n\n");
    let events = "";
    if (end === -1) {
      this.#pending = buffered;
    } else {
      events = buffered.slice(0, end + 2);
      this.#pending = buffered.slice(end + 2);
      if (!this.done && DONE.test(events)) this.done = true;
    }
    this.#clean = this.#pending === "" && !this.#sawCr && (length === 0 || chunk[length - 1]! < 0x80);
    return events;
  }

  /** At a clean upstream end: whatever is left as a complete event, then `data: [DONE]` if upstream sent none. */
  finish(): string {
    let rest = (this.#pending + this.#decoder.end()).replace(/\r\n?/g, "\n").replace(/^\n+/, "");
    this.#pending = "";
    if (rest.trim() !== "") {
      rest = rest.endsWith("\n") ? `${rest}\n` : `${rest}\n\n`;
      if (DONE.test(rest)) this.done = true;
    } else {
      rest = "";
    }
    if (!this.done) {
      this.done = true;
      rest += "data: [DONE]\n\n";
    }
    return rest;
  }
}

/** The event that ends a stream that broke after it began (then `data: [DONE]`). */
export function streamErrorEvent(message: string): string {
  const error = { error: { message, type: "server_error", param: null, code: "stream_interrupted" } };
  return `data: ${JSON.stringify(error)}\n\ndata: [DONE]\n\n`;
}
