// The Message model shared by the core and every account, and its exact JSON codec: always 13 keys, in this order.
import { timestampNow } from "./timestamp.ts";

/** `Extra` is null in every case the API describes; protocols may carry attachments in it. */
export type MessageExtra = Record<string, unknown[]> | null;

export interface Message {
  text: string;
  channel: string;
  username: string;
  userid: string;
  avatar: string;
  account: string;
  event: string;
  protocol: string;
  gateway: string;
  parent_id: string;
  timestamp: string;
  id: string;
  Extra: MessageExtra;
}

/** Event names Matterbridge defines; the core and accounts use these constants. */
export const Events = {
  joinLeave: "join_leave",
  topicChange: "topic_change",
  failure: "failure",
  fileFailureSize: "file_failure_size",
  avatarDownload: "avatar_download",
  rejoinChannels: "rejoin_channels",
  userAction: "user_action",
  msgDelete: "msg_delete",
  fileDelete: "file_delete",
  apiConnected: "api_connected",
  userTyping: "user_typing",
  getChannelMembers: "get_channel_members",
  noticeIrc: "notice_irc",
} as const;

/** parent_id given to a destination that cannot resolve the parent of a reply. */
export const PARENT_NOT_FOUND = "msg-parent-not-found";

/** The ordered list of the 13 JSON keys. */
export const MESSAGE_FIELDS = [
  "text",
  "channel",
  "username",
  "userid",
  "avatar",
  "account",
  "event",
  "protocol",
  "gateway",
  "parent_id",
  "timestamp",
  "id",
  "Extra",
] as const;

export function emptyMessage(overrides: Partial<Message> = {}): Message {
  return {
    text: "",
    channel: "",
    username: "",
    userid: "",
    avatar: "",
    account: "",
    event: "",
    protocol: "",
    gateway: "",
    parent_id: "",
    timestamp: "",
    id: "",
    Extra: null,
    ...overrides,
  };
}

/** The `api_connected` greeting: every string empty, Extra null, timestamp now. */
export function connectedEvent(): Message {
  return emptyMessage({ event: Events.apiConnected, timestamp: timestampNow() });
}

/**
 * Characters JSON.stringify writes other than as themselves: the quote, the backslash, controls, and surrogates
 * (a lone one is escaped; a string holding any takes the general path).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is matched
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify of a string: most of a message's fields are empty or plain, quoted without the call. */
export function quoteJsonString(value: string): string {
  if (value === "") return '""';
  return typeof value !== "string" || ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`;
}

const q = quoteJsonString;

/** Texts at least this long are quoted once for all the copies of one message (the answer, each destination). */
const REUSED_QUOTE_CHARS = 16 * 1024;
let lastText = "";
let lastQuoted = '""';

/** JSON.stringify of a text; a long one is remembered, as the next encodes of the same message quote it again. */
function quoteText(text: string): string {
  if (text.length < REUSED_QUOTE_CHARS) return q(text);
  if (text !== lastText) {
    lastText = text;
    lastQuoted = q(text);
  }
  return lastQuoted;
}

/** Compact JSON with the 13 keys in their fixed order, whatever order the object was built in. */
export function encodeMessage(m: Message): string {
  return (
    `{"text":${quoteText(m.text)},"channel":${q(m.channel)},"username":${q(m.username)},"userid":${q(m.userid)}` +
    `,"avatar":${q(m.avatar)},"account":${q(m.account)},"event":${q(m.event)},"protocol":${q(m.protocol)}` +
    `,"gateway":${q(m.gateway)},"parent_id":${q(m.parent_id)},"timestamp":${q(m.timestamp)},"id":${q(m.id)}` +
    `,"Extra":${m.Extra === null ? "null" : JSON.stringify(m.Extra)}}`
  );
}
