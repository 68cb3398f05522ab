// What a Slack `message` event (api.slack.com/events/message and its subtypes) means for the bridge: a text (plain,
// /me, a thread reply, another bot's post), an edit (message_changed), a delete (message_deleted), a join or leave,
// a topic change — or nothing (the app's own posts, link unfurls, hidden bookkeeping). Pure: the connection resolves
// the user and the channel's name.
//
// The app's own posts are recognised by every mark Slack keeps on them: the bot id, the bot's user id, the app id
// (also in `bot_profile`), and the timestamps of the posts it made (which survive an event that lost the others).
import { Events } from "../../message.ts";

export interface SlackEvent {
  type: string;
  subtype?: string;
  channel?: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  bot_profile?: { app_id?: string };
  username?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  deleted_ts?: string;
  edited?: { user?: string; ts?: string };
  message?: SlackEvent;
  previous_message?: SlackEvent;
  files?: SlackFile[];
}

/** A file shared with a message (api.slack.com/types/file): its page and its bytes (behind the bot token). */
export interface SlackFile {
  name?: string | undefined;
  permalink?: string | undefined;
  url_private?: string | undefined;
  url_private_download?: string | undefined;
  size?: number | undefined;
}

export interface Self {
  userId: string;
  botId: string;
  /** The app's id, when known (Socket Mode envelopes name it). */
  appId?: string;
  /** Whether the app posted the message with this timestamp. */
  posted?(ts: string): boolean;
}

export type Inbound =
  | { kind: "ignore" }
  | { kind: "delete"; id: string }
  | {
      kind: "text";
      id: string;
      parentId: string;
      text: string;
      event: string;
      /** The Slack user who wrote it, when a person (or a bot user) did. */
      userId: string | undefined;
      /** The name a bot or webhook posted under, when it gave one. */
      postedAs: string | undefined;
      edited: boolean;
      /** Files shared with a new message (an edit carries its text only). */
      files: SlackFile[];
    };

const IGNORE: Inbound = { kind: "ignore" };
/** Subtypes relayed as ordinary messages. */
const TEXT_SUBTYPES = new Set([undefined, "bot_message", "me_message", "thread_broadcast", "file_share"]);
/** What Slack leaves in place of a deleted message that had thread replies. */
const DELETED_PLACEHOLDER = "This message was deleted.";

const isOwn = (event: SlackEvent | undefined, self: Self) =>
  event !== undefined &&
  ((event.bot_id !== undefined && event.bot_id === self.botId) ||
    (event.user !== undefined && event.user === self.userId) ||
    (!!self.appId && (event.app_id === self.appId || event.bot_profile?.app_id === self.appId)) ||
    (event.ts !== undefined && self.posted?.(event.ts) === true));

/** A thread reply's parent: the thread's root, unless the message is the root itself. */
const parentOf = (event: SlackEvent) =>
  event.thread_ts !== undefined && event.thread_ts !== event.ts ? event.thread_ts : "";

export function interpret(event: SlackEvent, self: Self, editDisable: boolean): Inbound {
  if (event.type !== "message") return IGNORE;
  switch (event.subtype) {
    case "message_changed": {
      const changed = event.message;
      // An unfurl or a reply count changing arrives as a change without `edited`; and our own edits echo back.
      if (changed === undefined || changed.ts === undefined || isOwn(changed, self)) return IGNORE;
      if (changed.text === DELETED_PLACEHOLDER) return { kind: "delete", id: changed.ts };
      if (changed.edited === undefined || editDisable) return IGNORE;
      return {
        kind: "text",
        id: changed.ts,
        parentId: parentOf(changed),
        text: changed.text ?? "",
        event: changed.subtype === "me_message" ? Events.userAction : "",
        userId: changed.user,
        postedAs: changed.username,
        edited: true,
        files: [],
      };
    }
    case "message_deleted":
      if (event.deleted_ts === undefined || isOwn(event.previous_message, self)) return IGNORE;
      return { kind: "delete", id: event.deleted_ts };
    case "channel_join":
    case "channel_leave":
    case "channel_topic":
      if (isOwn(event, self) || event.ts === undefined) return IGNORE;
      return {
        kind: "text",
        id: event.ts,
        parentId: "",
        text: event.text ?? "",
        event: event.subtype === "channel_topic" ? Events.topicChange : Events.joinLeave,
        userId: event.user,
        postedAs: undefined,
        edited: false,
        files: [],
      };
  }
  if (!TEXT_SUBTYPES.has(event.subtype) || isOwn(event, self) || event.ts === undefined) return IGNORE;
  const text = event.text ?? "";
  const files = (event.files ?? []).filter((file) => file.url_private !== undefined || file.permalink !== undefined);
  if (text.trim() === "" && files.length === 0) return IGNORE;
  return {
    kind: "text",
    id: event.ts,
    parentId: parentOf(event),
    text,
    event: event.subtype === "me_message" ? Events.userAction : "",
    userId: event.user,
    postedAs: event.username,
    edited: false,
    files,
  };
}
