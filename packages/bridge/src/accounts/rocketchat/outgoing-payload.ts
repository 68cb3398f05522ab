// What a Rocket.Chat outgoing webhook ("Message Sent") posts, read from JSON the account does not trust: token,
// channel_id, channel_name, message_id, timestamp, user_id, user_name, text, and when they apply alias, tmid
// (a thread reply), isEdited, bot, siteUrl. Turned into the account's RcMessage, so it is judged as a realtime one.
import { objectOf, stringOf } from "../json-fields.ts";
import type { RcMessage } from "./message-shape.ts";

export interface OutgoingCall {
  token: string;
  /** The room's name without "#". */
  channelName: string;
  message: RcMessage;
  /** The server's URL as Rocket.Chat knows it ("" when not sent). */
  siteUrl: string;
}

/** The call, or what is wrong with it (said to the caller with a 400). */
export function readOutgoingCall(value: unknown): OutgoingCall | string {
  const raw = objectOf(value);
  if (raw === undefined) return "the body must be a JSON object (Rocket.Chat's outgoing webhook call)";
  const token = stringOf(raw.token) ?? "";
  const channelName = stringOf(raw.channel_name);
  const userName = stringOf(raw.user_name);
  const text = raw.text === undefined || raw.text === null ? "" : stringOf(raw.text);
  if (channelName === undefined || channelName === "") return "channel_name is missing or not a string";
  if (userName === undefined) return "user_name is missing or not a string";
  if (text === undefined) return "text is not a string";
  const timestamp = Date.parse(stringOf(raw.timestamp) ?? "");
  return {
    token,
    channelName: channelName.replace(/^#/, ""),
    siteUrl: (stringOf(raw.siteUrl) ?? "").replace(/\/+$/, ""),
    message: {
      id: stringOf(raw.message_id) ?? "",
      roomId: stringOf(raw.channel_id) ?? "",
      text,
      userId: stringOf(raw.user_id) ?? "",
      username: userName,
      alias: stringOf(raw.alias) ?? "",
      avatar: "",
      threadId: stringOf(raw.tmid) ?? "",
      type: "",
      edited: raw.isEdited === true,
      updatedAt: Number.isNaN(timestamp) ? Date.now() : timestamp,
      files: [],
    },
  };
}
