import { type OutgoingHttpHeaders, validateHeaderName, validateHeaderValue } from "node:http";

export type HeaderValue = number | string | readonly string[];

/**
 * Header lines checked and rendered once, for answers that repeat them (per backend, per kind of answer): a
 * RawResponse given them writes their bytes as they are, instead of checking and rendering each line per request.
 * Built with node:http's own checks and errors, so a CR or LF in a value throws here, before anything is written.
 * Later entries replace earlier ones of the same name (case-insensitively) in place, as setHeader does.
 */
export class PreparedHeaders {
  /** The lines as node:http renders them ("Name: value\r\n" each, an array as one line per item). */
  readonly lines: string;
  /** By lower-case name: the name as given and its value. */
  readonly entries: ReadonlyMap<string, readonly [string, HeaderValue]>;

  constructor(headers: Iterable<readonly [string, HeaderValue]> | Readonly<Record<string, HeaderValue>>) {
    const entries = new Map<string, readonly [string, HeaderValue]>();
    const pairs = Symbol.iterator in headers ? headers : Object.entries(headers);
    for (const [name, value] of pairs as Iterable<readonly [string, HeaderValue]>) {
      validateHeaderName(name);
      const items = Array.isArray(value) ? [...value] : undefined;
      for (const item of items ?? [value]) validateHeaderValue(name, String(item));
      entries.set(name.toLowerCase(), [name, items ?? value]);
    }
    let lines = "";
    for (const [name, value] of entries.values()) lines += headerLines(name, value);
    this.entries = entries;
    this.lines = lines;
  }

  /** The value of a header, by name in any case. */
  get(name: string): HeaderValue | undefined {
    return this.entries.get(name.toLowerCase())?.[1];
  }

  /**
   * These headers followed by `headers` in one object, for a response that takes no prepared lines: ordered as
   * node:http orders a setHeader of each of these and then writeHead(status, headers).
   */
  withHeaders(headers: Readonly<Record<string, HeaderValue | undefined>>): OutgoingHttpHeaders {
    const all = new Map<string, readonly [string, HeaderValue]>(this.entries);
    for (const name in headers) {
      const value = headers[name];
      if (value !== undefined) all.set(name.toLowerCase(), [name, value]);
    }
    const merged: OutgoingHttpHeaders = {};
    // Arrays are copies made here or the caller's own: node only reads them.
    for (const [name, value] of all.values()) merged[name] = value as OutgoingHttpHeaders[string];
    return merged;
  }
}

/** One header as node:http writes it in a head. */
export function headerLines(name: string, value: HeaderValue): string {
  if (!Array.isArray(value)) return `${name}: ${value}\r\n`;
  let lines = "";
  for (const item of value) lines += `${name}: ${item}\r\n`;
  return lines;
}
