// mIRC formatting codes: stripped when IRC text goes to another protocol, and used for ColorNicks.
import { crc32 } from "node:zlib";

/**
 * Colour (\x03 with optional "fg[,bg]" of 1–2 digits each), hex colour (\x04 with optional "RRGGBB[,RRGGBB]"), bold
 * \x02, italic \x1d, underline \x1f, strikethrough \x1e, monospace \x11, reverse \x16, reset \x0f, and any other C0
 * control character except tab and line breaks (Matterbridge's default outgoing script drops all of them).
 */
const FORMATTING =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what is matched
  /\x03(?:\d{1,2}(?:,\d{1,2})?)?|\x04(?:[0-9a-fA-F]{6}(?:,[0-9a-fA-F]{6})?)?|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

export function stripIrcFormatting(text: string): string {
  return text.replace(FORMATTING, "");
}

/**
 * ColorNicks: the nick wrapped in an mIRC colour picked from its CRC-32 (as Matterbridge does: 2–15, never white or
 * black), then a reset, so the same nick always gets the same colour.
 */
export function colorNick(nick: string): string {
  const code = (crc32(Buffer.from(nick, "utf8")) % 14) + 2;
  return `\x03${String(code).padStart(2, "0")}${nick}\x0f`;
}
