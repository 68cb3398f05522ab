import { StringDecoder } from "node:string_decoder";

/** One server-sent event: its `event:` name ("" when absent) and its `data:` lines joined by "\n". */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Splits a provider's SSE byte stream into events as their blank lines arrive (LF, CRLF or CR line endings; a CRLF
 * split across chunks is not mistaken for an event boundary). Comments and events without data are skipped.
 * Each chunk's text is scanned once: an event that arrives in many chunks costs its length, not its length squared.
 */
export class SseEventParser {
  readonly #decoder = new StringDecoder("utf8");
  /** The unfinished event, line endings already LF. */
  #pending = "";
  #pendingEndsWithLf = false;
  /** A chunk's trailing CR, which may be the first half of a CRLF: kept until the next chunk says. */
  #heldCr = false;

  push(chunk: Buffer): SseEvent[] {
    let text = this.#decoder.write(chunk);
    if (this.#heldCr) text = `\r${text}`;
    this.#heldCr = text.endsWith("\r");
    if (this.#heldCr) text = text.slice(0, -1);
    if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
    const pending = this.#pending;
    const end = eventsEnd(pending, this.#pendingEndsWithLf, text);
    if (text !== "") this.#pendingEndsWithLf = text.endsWith("\n");
    if (end === -1) {
      this.#pending = pending + text;
      return [];
    }
    const buffered = pending + text;
    this.#pending = buffered.slice(end + 2);
    return parseBlocks(buffered.slice(0, end));
  }

  /** What is left when the stream ends (an event the provider did not terminate with a blank line). */
  finish(): SseEvent[] {
    const held = this.#heldCr ? "\r" : "";
    const rest = (this.#pending + held + this.#decoder.end()).replace(/\r\n?/g, "\n").trim();
    this.#pending = "";
    this.#pendingEndsWithLf = false;
    this.#heldCr = false;
    return rest === "" ? [] : parseBlocks(rest);
  }
}

/**
 * Where the last blank line of `pending + text` begins, or -1: searched for in `text` alone, and across the join
 * (`pending` ending with LF, `text` starting with one), so that the unfinished event is never scanned again.
 */
export function eventsEnd(pending: string, pendingEndsWithLf: boolean, text: string): number {
  const inText = text.lastIndexOf("\n\n");
  if (inText !== -1) return pending.length + inText;
  return pendingEndsWithLf && pending !== "" && text.startsWith("\n") ? pending.length - 1 : -1;
}

function parseBlocks(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split("\n\n")) {
    let event = "";
    let data: string | undefined;
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") data = data === undefined ? value : `${data}\n${value}`;
    }
    if (data !== undefined) events.push({ event, data });
  }
  return events;
}
