// Turning a bridged message into IRC lines. IRC has no multi-line messages and a 512-byte line limit (prefix,
// command, target and CRLF included), so each message line becomes one PRIVMSG, and long lines are split
// (MessageSplit) or clipped (MessageClipped) at MessageLength bytes of UTF-8 — never inside a code point.

/** Matterbridge's default MessageClipped. */
export const DEFAULT_CLIPPED = " <clipped message>";

/** Bytes of `text` in UTF-8 (a lone surrogate counts as U+FFFD, 3 bytes), counted without encoding it. */
export const utf8Length = (text: string): number => Buffer.byteLength(text, "utf8");

/**
 * The longest prefix of `text` (in UTF-16 units) whose UTF-8 encoding fits in `maxBytes`, ending on a code point
 * boundary. Lone surrogates count as 3 bytes (what TextEncoder writes for them: U+FFFD).
 */
function prefixWithin(text: string, maxBytes: number): number {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    const pair = code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00;
    const size = pair ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += pair ? 2 : 1;
  }
  return index;
}

/**
 * The IRC lines of a message: split on any line break, blank lines dropped (IRC cannot send an empty message),
 * trailing spaces dropped (servers strip them anyway), NUL removed (not allowed on the wire). Leading spaces stay.
 */
export function messageLines(text: string): string[] {
  return text
    .replace(/\0/g, "")
    .split(/\r\n|\r|\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line !== "");
}

/**
 * Splits one line into parts of at most maxBytes UTF-8 bytes, `continuation` included. A part ends at the last space
 * that keeps it at least half full (the space is dropped), otherwise at the last code point that fits. Matterbridge
 * splits at the byte limit regardless of words and appends MessageClipped to every part but the last; pass that as
 * `continuation` to do the same.
 */
export function splitLine(line: string, maxBytes: number, continuation = ""): string[] {
  if (utf8Length(line) <= maxBytes) return [line];
  const room = maxBytes - utf8Length(continuation);
  if (room < 4) throw new RangeError(`a line limit of ${maxBytes} bytes leaves no room for text after the marker`);
  const parts: string[] = [];
  let rest = line;
  while (utf8Length(rest) > maxBytes) {
    const fits = prefixWithin(rest, room);
    const space = rest.lastIndexOf(" ", fits);
    const cut = space > 0 && utf8Length(rest.slice(0, space)) * 2 >= room ? space : fits;
    parts.push(rest.slice(0, cut) + continuation);
    rest = rest.slice(cut).replace(/^ /, "");
  }
  if (rest !== "") parts.push(rest);
  return parts;
}

/** Cuts one line to maxBytes UTF-8 bytes, `suffix` included, on a code point boundary; short lines are unchanged. */
export function clipLine(line: string, maxBytes: number, suffix = DEFAULT_CLIPPED): string {
  if (utf8Length(line) <= maxBytes) return line;
  const room = maxBytes - utf8Length(suffix);
  if (room < 0) return line.slice(0, prefixWithin(line, maxBytes));
  return line.slice(0, prefixWithin(line, room)) + suffix;
}

/** MessageSplit = true: every message line, long ones split into several IRC lines. */
export function splitMessage(text: string, maxBytes: number, continuation = ""): string[] {
  return messageLines(text).flatMap((line) => splitLine(line, maxBytes, continuation));
}

/** MessageSplit = false: every message line, long ones clipped with MessageClipped. */
export function clipMessage(text: string, maxBytes: number, suffix = DEFAULT_CLIPPED): string[] {
  return messageLines(text).map((line) => clipLine(line, maxBytes, suffix));
}
