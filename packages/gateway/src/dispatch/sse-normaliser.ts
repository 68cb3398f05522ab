import { StringDecoder } from "node:string_decoder";
import { eventsEnd } from "../backends/sse-events.ts";
import type { StreamFramer } from "./stream-framer.ts";

const LF = 0x0a;
const CR = 0x0d;
const CLOSE_BRACKET = 0x5d;
const ENDS_WITH_DONE = /(^|\n)data: ?\[DONE\]\n\n$/;

/** Whether complete LF events end with `data: [DONE]`: a byte compare per chunk, the pattern only after a `]`. */
function endsWithDone(events: Buffer | string): boolean {
  const length = events.length;
  if (length < 13) return false;
  if (typeof events === "string")
    return events.charCodeAt(length - 3) === CLOSE_BRACKET && ENDS_WITH_DONE.test(events.slice(-32));
  return (
    events[length - 3] === CLOSE_BRACKET && ENDS_WITH_DONE.test(events.toString("latin1", Math.max(0, length - 32)))
  );
}

/**
 * Re-frames an upstream SSE byte stream into complete LF-terminated events: CRLF and CR become LF, and an event is
 * emitted only once its blank line has arrived. A chunk that is exactly a run of complete LF events (the usual case)
 * is passed through as the same bytes, without decoding or scanning for `[DONE]`: whether the stream ended with
 * `[DONE]` is read from the last event only, when it ends.
 */
export class SseNormaliser implements StreamFramer {
  #decoder: StringDecoder | undefined;
  #pending = "";
  #pendingEndsWithLf = false;
  #sawCr = false;
  /** Nothing is buffered: no partial event, no partial character, no trailing CR. */
  #clean = true;
  /**
   * Whether the last complete events emitted ended with `data: [DONE]`. A flag rather than those events: holding the
   * last upstream chunk would keep its buffer alive for as long as the stream lasts, for every stream.
   */
  #endedWithDone = false;

  /** `closeWithDone`: an OpenAI stream, which ends with `data: [DONE]` (added when the backend left it out). */
  constructor(private readonly closeWithDone = true) {}

  /** Feeds upstream bytes; returns the complete events they finish (empty when none). */
  push(chunk: Buffer): Buffer | string {
    const length = chunk.length;
    if (this.#clean && length >= 2 && chunk[length - 1] === LF && chunk[length - 2] === LF && !chunk.includes(CR)) {
      this.#endedWithDone = endsWithDone(chunk);
      return chunk;
    }
    this.#decoder ??= new StringDecoder("utf8");
    let text = this.#decoder.write(chunk);
    if (this.#sawCr && text.startsWith("\n")) text = text.slice(1); // the \n of a CRLF split across chunks
    this.#sawCr = text.endsWith("\r");
    if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
    // The unfinished event is not scanned again (eventsEnd): many chunks without a blank line cost their length once.
    const pending = this.#pending;
    const end = eventsEnd(pending, this.#pendingEndsWithLf, text);
    if (text !== "") this.#pendingEndsWithLf = text.endsWith("\n");
    let events = "";
    if (end === -1) {
      this.#pending = pending + text;
    } else {
      const buffered = pending + text;
      events = buffered.slice(0, end + 2);
      this.#pending = buffered.slice(end + 2);
      this.#endedWithDone = endsWithDone(events);
    }
    this.#clean = this.#pending === "" && !this.#sawCr && (length === 0 || chunk[length - 1]! < 0x80);
    return events;
  }

  /**
   * At a clean upstream end: whatever is left as a complete event, then (for OpenAI's streams) `data: [DONE]` unless
   * the stream ended so.
   */
  finish(): string {
    let rest = "";
    if (this.#decoder !== undefined || this.#pending !== "") {
      rest = (this.#pending + (this.#decoder?.end() ?? "")).replace(/\r\n?/g, "\n").replace(/^\n+/, "");
      this.#pending = "";
      if (rest.trim() === "") rest = "";
      else rest = rest.endsWith("\n") ? `${rest}\n` : `${rest}\n\n`;
    }
    if (rest !== "") this.#endedWithDone = endsWithDone(rest);
    return this.#endedWithDone || !this.closeWithDone ? rest : `${rest}data: [DONE]\n\n`;
  }
}

/** The event that ends a stream that broke after it began (then `data: [DONE]`). */
export function streamErrorEvent(message: string, code = "stream_interrupted"): string {
  const error = { error: { message, type: "server_error", param: null, code } };
  return `data: ${JSON.stringify(error)}\n\ndata: [DONE]\n\n`;
}
