/**
 * Long texts stay out of the event loop. A chat body of megabytes is nearly all one or two prompt strings, and the
 * gateway only forwards them: it needs their length (routing, estimates), a sample (token counts), and the client's
 * bytes. So the parse worker takes every long string out of the parsed body (takeOutLongTexts), the main thread gets
 * a small body with a LongText in each place (putBackLongTexts), and the bytes go to the backend as they came (or
 * with the model name spliced in, at the range the worker found). Taking a parsed string of megabytes into the main
 * heap costs milliseconds per request, and a few of them in the heap make every garbage collection long.
 */

import { LongText } from "../request/long-text.ts";

/** Where a long text was, and what is kept of it. */
export interface LongTextMark {
  path: (string | number)[];
  length: number;
  sample: string;
}

/**
 * Replaces every string of `value` at least `minChars` long with null, in place, and says where they were.
 * Runs in the parse worker, which gets this function's source text: it must use no imports and no outer names.
 */
export function takeOutLongTexts(value: unknown, minChars: number, sampleChars: number): LongTextMark[] {
  const marks: LongTextMark[] = [];
  const visit = (container: Record<string | number, unknown>, key: string | number, path: (string | number)[]) => {
    const item = container[key];
    if (typeof item === "string" && item.length >= minChars) {
      marks.push({ path: [...path, key], length: item.length, sample: item.slice(0, sampleChars) });
      container[key] = null;
    } else if (item !== null && typeof item === "object") {
      walk(item as Record<string | number, unknown>, [...path, key]);
    }
  };
  const walk = (node: Record<string | number, unknown>, path: (string | number)[]) => {
    if (Array.isArray(node)) for (let i = 0; i < node.length; i++) visit(node, i, path);
    else for (const key of Object.keys(node)) visit(node, key, path);
  };
  if (value !== null && typeof value === "object") walk(value as Record<string | number, unknown>, []);
  return marks;
}

/** Puts a LongText where the worker took each long text out (defineProperty: a key may be "__proto__"). */
export function putBackLongTexts(value: unknown, marks: readonly LongTextMark[]): void {
  for (const mark of marks) {
    let node = value as Record<string | number, unknown>;
    for (const step of mark.path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
    const key = mark.path[mark.path.length - 1] as string | number;
    Object.defineProperty(node, key, {
      value: new LongText(mark.length, mark.sample),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
}

/** Whether a parsed body still has its long texts in the worker (so it cannot be serialised again here). */
export function hasLongTexts(value: unknown): boolean {
  if (value instanceof LongText) return true;
  if (value === null || typeof value !== "object") return false;
  return Object.values(value).some(hasLongTexts);
}

/**
 * The byte range [start, end) of the value of the top-level member `key` in valid JSON text (the last such member,
 * the one JSON.parse keeps), or undefined. Runs in the parse worker: no imports, no outer names.
 */
export function topLevelMemberRange(bytes: Uint8Array, key: string): [number, number] | undefined {
  const QUOTE = 0x22;
  const BACKSLASH = 0x5c;
  /** Index just past the string starting at the quote at `open`. */
  const stringEnd = (open: number): number => {
    let at = open + 1;
    for (;;) {
      const quote = bytes.indexOf(QUOTE, at);
      if (quote === -1) return bytes.length;
      let backslashes = 0;
      while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) return quote + 1;
      at = quote + 1;
    }
  };
  const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
  const decoder = new TextDecoder();
  /** Whether the string token [start, end) is `key` (escapes decoded: "\u006dodel" is "model" too). */
  const isKey = (start: number, end: number) => {
    if (end - start > 8 * key.length + 2) return false;
    try {
      return JSON.parse(decoder.decode(bytes.subarray(start, end))) === key;
    } catch {
      return false;
    }
  };
  let depth = 0;
  let expectKey = false;
  let found: [number, number] | undefined;
  /** Where the wanted member's value starts, while it is being read. */
  let valueStart = -1;
  const endLiteral = (at: number) => {
    let end = at;
    while (isSpace(bytes[end - 1])) end--;
    found = [valueStart, end];
    valueStart = -1;
  };
  let i = 0;
  while (i < bytes.length) {
    const byte = bytes[i] as number;
    if (byte === QUOTE) {
      const end = stringEnd(i);
      if (depth === 1 && expectKey) {
        expectKey = false;
        if (isKey(i, end)) {
          let colon = end;
          while (isSpace(bytes[colon])) colon++;
          let start = colon + 1;
          while (isSpace(bytes[start])) start++;
          valueStart = start;
          i = start;
          continue;
        }
      } else if (valueStart === i) {
        found = [i, end];
        valueStart = -1;
      }
      i = end;
      continue;
    }
    if (byte === 0x7b || byte === 0x5b) {
      depth++;
      if (depth === 1) expectKey = byte === 0x7b;
    } else if (byte === 0x7d || byte === 0x5d) {
      // A number, true, false or null ends at the object's close; an object or array value at its own.
      if (depth === 1 && valueStart >= 0) endLiteral(i);
      depth--;
      if (depth === 1 && valueStart >= 0) {
        found = [valueStart, i + 1];
        valueStart = -1;
      }
    } else if (byte === 0x2c && depth === 1) {
      if (valueStart >= 0) endLiteral(i);
      expectKey = true;
    }
    i++;
  }
  return found;
}
