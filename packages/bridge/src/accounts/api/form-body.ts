// application/x-www-form-urlencoded messages (matterbabble and other clients post forms): the same field names as
// the JSON body, string values only. Decoded from the bytes in one pass: URLSearchParams and decodeURIComponent take
// tenths of a second on a 1 MiB field, which would stall the event loop. Malformed escapes are kept as sent, as
// URLSearchParams does; the number of fields is bounded before anything is decoded.
import { InboundError } from "./inbound-error.ts";
import { MAX_FORM_FIELDS } from "./limits.ts";

const AMPERSAND = 0x26;
const EQUALS = 0x3d;
const PLUS = 0x2b;
const PERCENT = 0x25;
const SPACE = 0x20;

function bad(message: string): never {
  throw new InboundError(400, message);
}

function hexValue(c: number | undefined): number {
  if (c === undefined) return -1;
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** Decodes bytes[start, end): `+` is a space, `%XX` a byte; the result is read as UTF-8. */
function decodeComponent(bytes: Buffer, start: number, end: number): string {
  const out = Buffer.allocUnsafe(end - start);
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = bytes[i] as number;
    if (c === PLUS) {
      out[n++] = SPACE;
      continue;
    }
    if (c === PERCENT) {
      const high = hexValue(bytes[i + 1]);
      const low = i + 2 < end ? hexValue(bytes[i + 2]) : -1;
      if (high >= 0 && low >= 0) {
        out[n++] = high * 16 + low;
        i += 2;
        continue;
      }
    }
    out[n++] = c;
  }
  return out.toString("utf8", 0, n);
}

/** The fields of a form body, by name as sent, in a prototype-free object (names are client data). */
export function parseFormBody(bytes: Buffer): Record<string, string> {
  let fields = 1;
  for (let amp = bytes.indexOf(AMPERSAND); amp >= 0; amp = bytes.indexOf(AMPERSAND, amp + 1)) {
    if (++fields > MAX_FORM_FIELDS) bad(`form with more than ${MAX_FORM_FIELDS} fields; a message needs at most 7`);
  }
  const out: Record<string, string> = Object.create(null);
  for (let start = 0; start <= bytes.length; ) {
    let end = bytes.indexOf(AMPERSAND, start);
    if (end < 0) end = bytes.length;
    let equals = bytes.indexOf(EQUALS, start);
    if (equals < 0 || equals > end) equals = end;
    const name = decodeComponent(bytes, start, equals);
    start = end + 1;
    if (name === "") continue;
    if (Object.hasOwn(out, name)) bad(`form field "${name}" is given more than once`);
    if (name.toLowerCase() === "extra") bad("Extra cannot be sent in a form: post files as JSON");
    out[name] = decodeComponent(bytes, Math.min(equals + 1, end), end);
  }
  if (Object.keys(out).length === 0) bad("empty body: send the fields text, username and gateway");
  return out;
}
