// A bridged message as IRC lines. IRC has one line per message, no edits and no deletes: each line of the text
// becomes one PRIVMSG (NOTICE for notice_irc, CTCP ACTION for user_action) carrying the nick prefix, long lines are
// split (MessageSplit) or clipped (MessageClipped) so that nick + text fit in MessageLength bytes, deletes and
// typing notifications are dropped, and an edit is sent as a new message (as Matterbridge: IRC returns no ids).
// One message takes at most MessageMaxLines lines: the last one then counts what did not fit.
import type { Delivery } from "../../core/account.ts";
import { Events } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { colorNick } from "./formatting.ts";
import { clipLine, messageLines, splitLine, utf8Length } from "./split.ts";
import { stripMarkdown } from "./strip-markdown.ts";

export interface OutboundSettings {
  MessageLength: number;
  MessageSplit: boolean;
  MessageClipped: string;
  MessageMaxLines: number;
  ColorNicks: boolean;
  StripMarkdown: boolean;
}

export interface IrcLine {
  command: "PRIVMSG" | "NOTICE";
  /** The line's text as it goes on the wire (an action already wrapped in \x01ACTION ...\x01). */
  text: string;
}

/** "\x01ACTION " and the closing "\x01". */
const ACTION_OVERHEAD = 9;

/** Events IRC cannot show. */
const DROPPED: ReadonlySet<string> = new Set([Events.msgDelete, Events.userTyping, Events.fileDelete]);

export function ircLines(delivery: Delivery, settings: OutboundSettings): IrcLine[] {
  const message = delivery.message;
  if (DROPPED.has(message.event)) return [];
  return oneLineOf(message, settings) ?? linesOf(message, settings);
}

/** What ircLines does not need to look at in the usual message: line breaks, NUL, and \x01 (see linesOf). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what is looked for
const SPECIAL = /[\0\x01\r\n]/;

/**
 * The lines of the usual message, the one a burst is made of, without building the general case's arrays: one line
 * of text without NUL, CR, LF or \x01, no files, nothing to strip, short enough not to be split or clipped. The same
 * lines as linesOf (test/irc-outbound.test.ts holds them equal); undefined for any other message.
 */
function oneLineOf(message: Delivery["message"], settings: OutboundSettings): IrcLine[] | undefined {
  const files = message.Extra?.file;
  if (settings.StripMarkdown || (files !== undefined && files.length > 0) || settings.MessageMaxLines < 1) {
    return undefined;
  }
  if (SPECIAL.test(message.text) || message.username.includes("\x01")) return undefined;
  const line = message.text.trimEnd();
  if (line === "") return [];
  const isAction = message.event === Events.userAction;
  const nick = message.username;
  const prefix = settings.ColorNicks && nick !== "" ? colorNick(nick) : nick;
  const budget = settings.MessageLength - (isAction ? ACTION_OVERHEAD : 0);
  const room = Math.max(budget - utf8Length(prefix), Math.floor(budget / 2));
  // A UTF-16 unit is at most 3 UTF-8 bytes: most lines are known to fit without counting.
  if (line.length * 3 > room && utf8Length(line) > room) return undefined;
  const command = message.event === Events.noticeIrc ? "NOTICE" : "PRIVMSG";
  return [{ command, text: isAction ? `\x01ACTION ${prefix}${line}\x01` : `${prefix}${line}` }];
}

/** Every case: each text line, then each file's, split or clipped to fit, at most MessageMaxLines. */
export function linesOf(message: Delivery["message"], settings: OutboundSettings): IrcLine[] {
  const isAction = message.event === Events.userAction;
  const command = message.event === Events.noticeIrc ? "NOTICE" : "PRIVMSG";
  // \x01 would let a user of another platform make the bot send a CTCP request of their choosing.
  const plain = message.text.replaceAll("\x01", "");
  const text = settings.StripMarkdown ? stripMarkdown(plain) : plain;
  const nick = message.username.replaceAll("\x01", "");
  const prefix = settings.ColorNicks && nick !== "" ? colorNick(nick) : nick;
  // The nick is repeated on every line, so it counts toward each line's length; a nick too long to leave half of
  // MessageLength for text gets that half anyway (the server's 512-byte limit still leaves room).
  const budget = settings.MessageLength - (isAction ? ACTION_OVERHEAD : 0);
  const room = Math.max(budget - utf8Length(prefix), Math.floor(budget / 2));
  const fit = (line: string) =>
    settings.MessageSplit ? splitLine(line, room) : [clipLine(line, room, settings.MessageClipped)];
  const textParts = messageLines(text).flatMap(fit);
  const fileParts = fileLines(message).flatMap(fit);
  const parts = boundLines(textParts, fileParts, settings.MessageMaxLines);
  return parts.map((part) => ({
    command,
    text: isAction ? `\x01ACTION ${prefix}${part}\x01` : `${prefix}${part}`,
  }));
}

const count = new Intl.NumberFormat("en-US");
const more = (n: number, what: string) => `+${count.format(n)} more ${what}${n === 1 ? "" : "s"}`;

/** At most `max` lines: the text's first, then the files'; when some do not fit, the last line counts them. */
function boundLines(textParts: string[], fileParts: string[], max: number): string[] {
  if (textParts.length + fileParts.length <= max) return [...textParts, ...fileParts];
  const kept = Math.max(max - 1, 0);
  const text = textParts.slice(0, kept);
  const files = fileParts.slice(0, kept - text.length);
  const missing = [textParts.length - text.length, fileParts.length - files.length];
  const summary = [missing[0] ? more(missing[0], "line") : "", missing[1] ? more(missing[1], "file") : ""];
  return [...text, ...files, `(${summary.filter((s) => s !== "").join(", ")})`];
}
