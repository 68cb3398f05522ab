// One pass over the raw JSON text, before JSON.parse: nesting depth and the number of values are counted, so a hostile
// body is refused in microseconds instead of being built into objects first. Strings are skipped with indexOf, so
// long texts and base64 file data cost next to nothing. Syntax is not checked here: JSON.parse does that next.
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from "./limits.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** Index of the quote that closes the string opened at `open`, or text.length when it is never closed. */
function endOfString(text: string, open: number): number {
  let quote = open;
  for (;;) {
    quote = text.indexOf('"', quote + 1);
    if (quote < 0) return text.length;
    // The quote is escaped when an odd number of backslashes precede it.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
}

/** Why the JSON text is beyond what a message needs, or undefined when its shape is within the limits. */
export function jsonShapeProblem(text: string): string | undefined {
  let depth = 0;
  let separators = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = endOfString(text, i);
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
