import { StringDecoder } from "node:string_decoder";

const DONE = /(^|\n)data: ?\[DONE\]\n/;

/**
 * Re-frames an upstream SSE byte stream into complete LF-terminated events: CRLF and CR become LF, an event is emitted
 * only once its blank line has arrived, and `[DONE]` is remembered so the relay can guarantee one at the end.
 */
export class SseNormaliser {
  readonly #decoder = new StringDecoder("utf8");
  #pending = "";
  #sawCr = false;
  done = false;

  /** Feeds upstream bytes; returns the complete events they finish ("" when none). */
  push(chunk: Buffer): string {
    let text = this.#decoder.write(chunk);
    if (this.#sawCr && text.startsWith("\n")) text = text.slice(1); // the \n of a CRLF split across chunks
    this.#sawCr = text.endsWith("\r");
    if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
    const buffered = this.#pending + text;
    const end = buffered.lastIndexOf("\n\n");
    if (end === -1) {
      this.#pending = buffered;
      return "";
    }
    const events = buffered.slice(0, end + 2);
    this.#pending = buffered.slice(end + 2);
    if (!this.done && DONE.test(events)) this.done = true;
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
