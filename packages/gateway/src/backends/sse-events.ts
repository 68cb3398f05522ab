import { StringDecoder } from "node:string_decoder";

/** One server-sent event: its `event:` name ("" when absent) and its `data:` lines joined by "\n". */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Splits a provider's SSE byte stream into events as their blank lines arrive (LF, CRLF or CR line endings; a CRLF
 * split across chunks is not mistaken for an event boundary). Comments and events without data are skipped.
 */
export class SseEventParser {
  readonly #decoder = new StringDecoder("utf8");
  #pending = "";

  push(chunk: Buffer): SseEvent[] {
    let text = this.#pending + this.#decoder.write(chunk);
    // A trailing CR may be the first half of a CRLF: keep it raw until the next chunk says.
    const heldCr = text.endsWith("\r");
    if (heldCr) text = text.slice(0, -1);
    if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
    const end = text.lastIndexOf("\n\n");
    if (end === -1) {
      this.#pending = heldCr ? `${text}\r` : text;
      return [];
    }
    this.#pending = text.slice(end + 2) + (heldCr ? "\r" : "");
    return parseBlocks(text.slice(0, end));
  }

  /** What is left when the stream ends (an event the provider did not terminate with a blank line). */
  finish(): SseEvent[] {
    const rest = (this.#pending + this.#decoder.end()).replace(/\r\n?/g, "\n").trim();
    this.#pending = "";
    return rest === "" ? [] : parseBlocks(rest);
  }
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
