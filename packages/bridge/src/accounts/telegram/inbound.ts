// What Telegram shows the bot, as bridged messages. Pure: the connection decides which chats are bridged; these
// functions turn one Bot API Message into a Message for the core. As in Matterbridge: users are named by @username
// (UseFirstName / UseFullName change that), a reply carries its parent's id and, unless QuoteDisable, the quoted
// text (QuoteFormat, QuoteLengthLimit), forwards say where they come from, formatting entities become Markdown, and
// edits are relayed with EditSuffix unless EditDisable. Unlike Matterbridge, "/me text" is an action (user_action),
// and a user without any name is named by their id (Matterbridge showed "<>").
import { fileInfo } from "../../core/files/file-info.ts";
import { Events, emptyMessage, type Message } from "../../message.ts";
import { messageKey } from "./ids.ts";
import type { TgEntity, TgMessage, TgUser } from "./update-shape.ts";

export interface InboundSettings {
  UseFirstName: boolean;
  UseFullName: boolean;
  QuoteDisable: boolean;
  QuoteFormat: string;
  QuoteLengthLimit: number;
  EditSuffix: string;
}

const UNKNOWN = "unknown";

function userName(user: TgUser | undefined, settings: InboundSettings): string {
  if (user === undefined) return "";
  let name = "";
  if (settings.UseFirstName) name = user.first_name;
  if (settings.UseFullName && user.first_name && user.last_name) name = `${user.first_name} ${user.last_name}`;
  if (name === "") name = user.username || user.first_name;
  return name || String(user.id);
}

/** Who wrote it: a user, or a chat (channel posts, anonymous admins), or the channel post's signature. */
function author(message: TgMessage, settings: InboundSettings): { username: string; userid: string } {
  let username = userName(message.from, settings);
  let userid = message.from ? String(message.from.id) : "";
  const chat = message.sender_chat;
  if (chat !== undefined) {
    userid = String(chat.id);
    username = chat.username || chat.title || username || username;
  }
  if (username === "" && message.author_signature) username = message.author_signature;
  return { username: username || userid || UNKNOWN, userid };
}

const MARKS: Record<string, [string, string]> = {
  bold: ["*", "*"],
  italic: ["_", "_"],
  strikethrough: ["~", "~"],
  code: ["`", "`"],
  pre: ["```\n", "\n```"],
};

/**
 * Entities as Markdown marks, and text links as "text (url)". Offsets are UTF-16 code units, as in JavaScript
 * strings. The marks are sorted by position and the text is cut once at each (a text of 40,000 characters with an
 * entity every other character was a copy of the whole text per mark before); nested entities close inside out.
 */
export function entitiesToMarkdown(text: string, entities: readonly TgEntity[] | undefined): string {
  if (!entities?.length) return text;
  const inserts: { at: number; text: string; order: number; sequence: number }[] = [];
  const insert = (at: number, mark: string, order: number) =>
    inserts.push({ at, text: mark, order, sequence: inserts.length });
  entities.forEach((entity, index) => {
    const end = entity.offset + entity.length;
    if (entity.offset < 0 || entity.length < 0 || end > text.length) return;
    if (entity.type === "text_link") {
      if (entity.url) insert(end, ` (${entity.url})`, -index);
      return;
    }
    const marks = Object.hasOwn(MARKS, entity.type) ? MARKS[entity.type] : undefined;
    if (marks === undefined) return;
    insert(entity.offset, marks[0], index);
    insert(end, marks[1], -index);
  });
  // At one position, the mark of the later opening entity (or of the earlier closing one) comes first, and of two
  // marks of one entity (empty), the closing one.
  inserts.sort((a, b) => a.at - b.at || b.order - a.order || b.sequence - a.sequence);
  const parts: string[] = [];
  let last = 0;
  for (const insert of inserts) {
    parts.push(text.slice(last, insert.at), insert.text);
    last = insert.at;
  }
  parts.push(text.slice(last));
  return parts.join("");
}

function quoted(text: string, nick: string, quote: string, settings: InboundSettings): string {
  let kept = quote;
  const limit = settings.QuoteLengthLimit;
  const characters = [...quote];
  if (limit > 0 && characters.length > limit) kept = `${characters.slice(0, limit).join("")}...`;
  return (settings.QuoteFormat || "{MESSAGE} (re @{QUOTENICK}: {QUOTEMESSAGE})")
    .replaceAll("{MESSAGE}", text)
    .replaceAll("{QUOTENICK}", nick)
    .replaceAll("{QUOTEMESSAGE}", kept);
}

function forwardedFrom(message: TgMessage, settings: InboundSettings): string | undefined {
  const origin = message.forward_origin;
  if (origin === undefined) return undefined;
  switch (origin.type) {
    case "user":
      return userName(origin.sender_user, settings) || UNKNOWN;
    case "hidden_user":
      return origin.sender_user_name || UNKNOWN;
    case "chat":
      return origin.sender_chat?.title || UNKNOWN;
    case "channel":
      return origin.chat?.title || UNKNOWN;
    default:
      return UNKNOWN;
  }
}

/** A topic message "replies" to its topic's first message; that is not a reply. */
function replyParent(message: TgMessage): TgMessage | undefined {
  const parent = message.reply_to_message;
  if (parent === undefined) return undefined;
  if (message.is_topic_message && parent.message_id === message.message_thread_id) return undefined;
  return parent;
}

/** A text message, a caption, or an edit of one; undefined when there is no text to relay (a sticker...). */
export function textMessage(
  message: TgMessage,
  channel: string,
  settings: InboundSettings,
  edited: boolean,
): Message | undefined {
  const raw = message.text ?? message.caption ?? "";
  // An edit of a photo's caption carries no file again (the core relays files with new messages only).
  if (raw === "" && message.file === undefined) return undefined;
  let text = entitiesToMarkdown(raw, message.entities ?? message.caption_entities);
  let event = "";
  const action = /^\/me(?:@\w+)?\s+/.exec(text);
  if (action !== null) {
    text = text.slice(action[0].length);
    event = Events.userAction;
  }
  const forwarded = forwardedFrom(message, settings);
  if (forwarded !== undefined) text = `Forwarded from ${forwarded}: ${text}`;
  const parent = replyParent(message);
  if (parent !== undefined && !settings.QuoteDisable) {
    const nick = userName(parent.from, settings) || UNKNOWN;
    text = quoted(text, nick, parent.text ?? parent.caption ?? "", settings);
  }
  if (edited) text += settings.EditSuffix;
  return emptyMessage({
    text,
    channel,
    ...author(message, settings),
    event,
    id: messageKey(message.chat.id, message.message_id),
    parent_id: parent === undefined ? "" : messageKey(message.chat.id, parent.message_id),
    // No URL: Telegram's file URLs carry the bot token; the account fetches the file by its file_id.
    Extra:
      message.file === undefined
        ? null
        : { file: [fileInfo({ Name: message.file.name, Size: message.file.size, NativeID: message.file.fileId })] },
  });
}

/** Joins and leaves, as Matterbridge words them ("joined chat", "left chat", by first name). */
export function presenceMessages(message: TgMessage, channel: string): Message[] {
  const joined = message.new_chat_members ?? [];
  const left = message.left_chat_member;
  const event = (user: TgUser, text: string) =>
    emptyMessage({
      text,
      channel,
      username: user.first_name || String(user.id),
      userid: String(user.id),
      event: Events.joinLeave,
    });
  return [...joined.map((user) => event(user, "joined chat")), ...(left ? [event(left, "left chat")] : [])];
}
