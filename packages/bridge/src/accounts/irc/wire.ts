// The text conversion between the bridge and irc-framework's strings, from the Charset key (see charset.ts).
// With a Charset, irc-framework converts the wire itself (iconv-lite) and strings pass unchanged. Without one, the
// client runs in "latin1" (each byte one character), so every string it hands over is decoded here as UTF-8, else
// Windows-1252, per string, and what we send is written as UTF-8 bytes.
import { decodeIrc, encodeIrcAsLatin1 } from "./charset.ts";

export interface Wire {
  /** irc-framework's `encoding` option. */
  readonly encoding: string;
  /** A string from irc-framework (text, nick, channel) as the bridge's text. */
  decode(text: string): string;
  /** The bridge's text as a string for irc-framework. */
  encode(text: string): string;
}

const identity = (text: string) => text;
// ASCII needs no conversion: the common case (nicks, channel names, English text) costs one regex test.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range is what is matched
const ASCII = /^[\x00-\x7f]*$/;

export function wireFor(charset: string): Wire {
  if (charset.trim() !== "") return { encoding: charset.trim().toLowerCase(), decode: identity, encode: identity };
  return {
    encoding: "latin1",
    decode: (text) => (ASCII.test(text) ? text : decodeIrc(Buffer.from(text, "latin1"))),
    encode: (text) => (ASCII.test(text) ? text : encodeIrcAsLatin1(text)),
  };
}
