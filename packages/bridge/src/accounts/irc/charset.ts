// The Charset key. irc-framework converts the wire itself (iconv-lite, both directions) when given its `encoding`
// option, so a configured Charset is passed there (iconv-lite knows every name Matterbridge lists except iso-2022-jp).
// Without a Charset, Matterbridge guesses each incoming line's charset; irc-framework's default "utf8" would turn
// Latin-1 bytes into U+FFFD instead. To guess, run the client with encoding "latin1" (bytes kept 1:1 as U+0000–U+00FF),
// read a line with decodeIrc(Buffer.from(line, "latin1")), and write with encodeIrcAsLatin1(text).

import { TextDecoder } from "node:util";

/** UTF-8 when the bytes are valid UTF-8, else Windows-1252 (what WHATWG calls ISO-8859-1, Matterbridge's fallback). */
export function decodeIrc(bytes: Uint8Array, charset = ""): string {
  if (charset !== "") return decoderFor(charset).decode(bytes);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

/** The UTF-8 bytes of `text` as a "latin1" string, for a client whose encoding is "latin1". */
export function encodeIrcAsLatin1(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

/** Whether TextDecoder knows `charset` (a WHATWG label such as utf-8, iso-8859-15, shift_jis, gbk, koi8-r). */
export function isKnownCharset(charset: string): boolean {
  try {
    decoderFor(charset);
    return true;
  } catch {
    return false;
  }
}

function decoderFor(charset: string): TextDecoder {
  try {
    return new TextDecoder(charset.trim().toLowerCase());
  } catch {
    throw new RangeError(
      `unknown Charset "${charset}" (use a label such as utf-8, iso-8859-1, shift_jis, gbk, koi8-r)`,
    );
  }
}
