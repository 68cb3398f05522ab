// A bridged message as IRC lines. IRC has one line per message, no edits and no deletes: each line of the text
// becomes one PRIVMSG (NOTICE for notice_irc, CTCP ACTION for user_action) carrying the nick prefix, long lines are
// split (MessageSplit) or clipped (MessageClipped) so that nick + text fit in MessageLength bytes, deletes and
// typing notifications are dropped, and an edit is sent as a new message (as Matterbridge: IRC returns no ids).
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
  const parts = [...messageLines(text), ...fileLines(delivery.message)].flatMap((line) =>
    settings.MessageSplit ? splitLine(line, room) : [clipLine(line, room, settings.MessageClipped)],
  );
  return parts.map((part) => ({
    command,
    text: isAction ? `\x01ACTION ${prefix}${part}\x01` : `${prefix}${part}`,
  }));
}
