// One pass over the raw JSON bytes, before they are decoded and parsed: nesting depth and the number of values are
// counted, so a hostile body is refused in about a millisecond per MiB instead of being built into objects first
// (JSON.parse of deep nesting or of tens of thousands of values stalls the event loop for tenths of a second).
// Structural characters are ASCII, and UTF-8 never uses ASCII bytes inside a multi-byte character, so bytes suffice.
// Syntax is not checked here: JSON.parse does that next.
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from "./limits.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** Bytes of a string looked at one by one before Buffer.indexOf takes over (most strings are short). */
const SHORT_STRING_BYTES = 64;

/** Why the JSON is beyond what a message needs, or undefined when its shape is within the limits. */
export function jsonShapeProblem(bytes: Uint8Array): string | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const length = buffer.length;
  let depth = 0;
  let separators = 0;
  // The next quote and backslash at or after the position they were looked up from (native searches, cached so
  // that a text full of escapes stays linear).
  let quote = -1;
  let backslash = -1;
  for (let i = 0; i < length; i++) {
    const c = buffer[i];
    if (c === QUOTE) {
      // Skip the string: a backslash escapes the byte after it (\" and \\ included). `i` ends on the closing quote.
      i++;
      const near = Math.min(length, i + SHORT_STRING_BYTES);
      while (i < near && buffer[i] !== QUOTE) i += buffer[i] === BACKSLASH ? 2 : 1;
      if (i < near || i >= length) continue;
      for (;;) {
        if (quote < i) quote = indexOrEnd(buffer, QUOTE, i);
        if (backslash < i) backslash = indexOrEnd(buffer, BACKSLASH, i);
        if (backslash >= quote) break;
        i = backslash + 2;
      }
      i = quote;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) {
        return `JSON nested deeper than ${MAX_JSON_DEPTH} levels; a message needs at most 4`;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if (c === COMMA && ++separators >= MAX_JSON_VALUES) {
      return `JSON with more than ${MAX_JSON_VALUES} values (array items and object members); a message needs far fewer`;
    }
  }
  return undefined;
}

function indexOrEnd(buffer: Buffer, byte: number, from: number): number {
  const found = buffer.indexOf(byte, from);
  return found === -1 ? buffer.length : found;
}
