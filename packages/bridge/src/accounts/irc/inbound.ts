// What IRC shows the bridge, as bridged messages: PRIVMSG, /me actions and channel notices, and, for destinations
// that want them, joins, parts, quits, kicks, nick changes (join_leave) and topic changes. Pure: the connection
// decides what is ours and which channel it is; these functions only build messages.
import { Events, emptyMessage, type Message } from "../../message.ts";
import { stripIrcFormatting } from "./formatting.ts";

/** Who did something, as irc-framework reports it. */
export interface IrcSource {
  nick: string;
  ident: string;
  hostname: string;
}

export type TextKind = "privmsg" | "action" | "notice";

const userId = (source: IrcSource) => `${source.ident}@${source.hostname}`;

/**
 * A channel message. Formatting codes (colours, bold...) are stripped: other protocols would show them as garbage
 * (Matterbridge's default outgoing script does the same for every non-IRC destination). A notice is `notice_irc`, as
 * in Matterbridge.
 */
export function textMessage(kind: TextKind, source: IrcSource, channel: string, text: string): Message {
  return emptyMessage({
    text: stripIrcFormatting(text),
    channel,
    username: source.nick,
    userid: userId(source),
    event: kind === "action" ? Events.userAction : kind === "notice" ? Events.noticeIrc : "",
  });
}

export type Presence = "joins" | "parts" | "quits" | "kicks";

/**
 * A join_leave event worded as Matterbridge words it ("alice joins", verbose: "alice (~a@host) joins"), from user
 * "system". For a kick, `source` is who kicked and `detail` who was kicked.
 */
export function presenceMessage(
  what: Presence,
  source: IrcSource,
  channel: string,
  verbose: boolean,
  detail = "",
): Message {
  const who = verbose ? `${source.nick} (${userId(source)})` : source.nick;
  const object = what === "kicks" && detail !== "" ? ` ${detail}` : "";
  return emptyMessage({
    text: `${who} ${what}${object}`,
    channel,
    username: "system",
    userid: userId(source),
    event: Events.joinLeave,
  });
}

/** A nick change, shown as a join_leave event in each channel the user is in (Matterbridge relays none). */
export function nickChangeMessage(source: IrcSource, newNick: string, channel: string): Message {
  return emptyMessage({
    text: `${source.nick} is now known as ${newNick}`,
    channel,
    username: "system",
    userid: userId(source),
    event: Events.joinLeave,
  });
}

/** Someone changed the topic (not the topic the server reports on join). */
export function topicMessage(nick: string, channel: string, topic: string): Message {
  return emptyMessage({
    text: `set the channel topic: ${stripIrcFormatting(topic)}`,
    channel,
    username: nick,
    event: Events.topicChange,
  });
}

/** Names in one answer to `!users` at most (Matterbridge's 300: four a row, 75 rows). */
const NAMES_PER_POST = 300;

/**
 * The answer to Matterbridge's `!users` (a message of just that text relayed to IRC): the channel's nicks, sorted,
 * as "alice, bob currently on IRC", from the bridge's own nick, in posts of at most 300 names.
 */
export function usersMessages(nicks: readonly string[], channel: string, ownNick: string): Message[] {
  const sorted = [...nicks].sort();
  const posts: Message[] = [];
  for (let at = 0; at < sorted.length; at += NAMES_PER_POST) {
    const text = `${sorted.slice(at, at + NAMES_PER_POST).join(", ")} currently on IRC`;
    posts.push(emptyMessage({ text, channel, username: ownNick }));
  }
  return posts;
}
