// An update from getUpdates as the account reads it, decoded from JSON it does not trust (a misbehaving server or
// proxy): the fields the bridge uses, each with its type checked. Required fields of the wrong type make the update
// malformed (skipped with a log line by the connection); optional ones of the wrong type are left out. A text that
// arrives as a JSON number (a proxy that "helpfully" parsed "12345") is the digits the user typed.
import { integerOf, type JsonObject, listOf, objectOf, stringOf } from "../json-fields.ts";

export interface TgUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}

interface TgChat {
  id: number;
  title?: string;
  username?: string;
}

export interface TgEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
}

type TgForwardOrigin =
  | { type: "user"; sender_user?: TgUser }
  | { type: "hidden_user"; sender_user_name?: string }
  | { type: "chat"; sender_chat?: TgChat }
  | { type: "channel"; chat?: TgChat }
  | { type: "other" };

export interface TgMessage {
  message_id: number;
  chat: TgChat;
  from?: TgUser;
  sender_chat?: TgChat;
  author_signature?: string;
  text?: string;
  caption?: string;
  entities?: TgEntity[];
  caption_entities?: TgEntity[];
  forward_origin?: TgForwardOrigin;
  reply_to_message?: TgMessage;
  is_topic_message?: boolean;
  message_thread_id?: number;
  new_chat_members?: TgUser[];
  left_chat_member?: TgUser;
  /** A photo (its largest size) or a document. */
  file?: TgFile;
}

interface TgFile {
  fileId: string;
  name: string;
  size: number;
}

export type TgUpdate =
  | { kind: "message"; updateId: number; message: TgMessage; edited: boolean }
  /** Not a kind the bridge relays (or no message in it): moves the offset on, nothing more. */
  | { kind: "other"; updateId: number }
  | { kind: "malformed"; updateId: number | undefined; reason: string };

const MESSAGE_KINDS = [
  ["message", false],
  ["channel_post", false],
  ["edited_message", true],
  ["edited_channel_post", true],
] as const;

/** The update's id when it has a usable one, whatever else is wrong with it (so the offset can move past it). */
export function updateIdOf(value: unknown): number | undefined {
  const id = integerOf(objectOf(value)?.update_id);
  return id !== undefined && id >= 0 ? id : undefined;
}

export function readUpdate(value: unknown): TgUpdate {
  const update = objectOf(value);
  const updateId = updateIdOf(value);
  if (update === undefined || updateId === undefined) {
    return { kind: "malformed", updateId, reason: "not an update with a numeric update_id" };
  }
  for (const [kind, edited] of MESSAGE_KINDS) {
    if (!(kind in update)) continue;
    const message = readMessage(update[kind]);
    if (typeof message === "string") return { kind: "malformed", updateId, reason: `${kind}: ${message}` };
    return { kind: "message", updateId, message, edited };
  }
  return { kind: "other", updateId };
}

/** A message, or why it cannot be one. */
function readMessage(value: unknown, depth = 0): TgMessage | string {
  const raw = objectOf(value);
  if (raw === undefined) return "not an object";
  const messageId = integerOf(raw.message_id);
  if (messageId === undefined) return "no numeric message_id";
  const chat = readChat(raw.chat);
  if (chat === undefined) return "no chat with a numeric id";
  const text = readText(raw, "text");
  const caption = readText(raw, "caption");
  if (text === null || caption === null) return "a text that is neither a string nor a number";
  const message: TgMessage = { message_id: messageId, chat };
  const from = readUser(raw.from);
  if (from !== undefined) message.from = from;
  const senderChat = readChat(raw.sender_chat);
  if (senderChat !== undefined) message.sender_chat = senderChat;
  assignString(message, "author_signature", raw.author_signature);
  if (text !== undefined) message.text = text;
  if (caption !== undefined) message.caption = caption;
  const entities = listOf(raw.entities, readEntity);
  if (entities !== undefined) message.entities = entities;
  const captionEntities = listOf(raw.caption_entities, readEntity);
  if (captionEntities !== undefined) message.caption_entities = captionEntities;
  const origin = readForwardOrigin(raw.forward_origin);
  if (origin !== undefined) message.forward_origin = origin;
  if (depth === 0 && raw.reply_to_message !== undefined) {
    // A parent that cannot be read is left out: the reply itself is still a message.
    const parent = readMessage(raw.reply_to_message, depth + 1);
    if (typeof parent !== "string") message.reply_to_message = parent;
  }
  if (raw.is_topic_message === true) message.is_topic_message = true;
  const thread = integerOf(raw.message_thread_id);
  if (thread !== undefined) message.message_thread_id = thread;
  const joined = listOf(raw.new_chat_members, readUser);
  if (joined !== undefined) message.new_chat_members = joined;
  const left = readUser(raw.left_chat_member);
  if (left !== undefined) message.left_chat_member = left;
  const file = readFile(raw);
  if (file !== undefined) message.file = file;
  return message;
}

/**
 * The file a message carries, as Matterbridge relays them: a sticker, a voice note, a video (a round video note too),
 * an audio file, a document (an animation comes with one), or a photo's largest size. Telegram names only documents,
 * audio, videos and animations; the others are named for their kind here ("photo.jpg", "voice.ogg", "sticker.webp").
 */
function readFile(raw: JsonObject): TgFile | undefined {
  for (const [field, unnamed] of FILE_FIELDS) {
    const chosen = field === "photo" ? listOf(raw.photo, objectOf)?.at(-1) : objectOf(raw[field]);
    if (chosen === undefined) continue;
    const fileId = stringOf(chosen.file_id);
    if (fileId === undefined || fileId === "") return undefined;
    const name = stringOf(chosen.file_name) || (field === "sticker" ? stickerName(chosen) : unnamed);
    return { fileId, name, size: integerOf(chosen.file_size) ?? 0 };
  }
  return undefined;
}

/** The fields that carry a file, in the order they are looked for, with the name of one Telegram leaves unnamed. */
const FILE_FIELDS: ReadonlyArray<[string, string]> = [
  ["sticker", "sticker.webp"],
  ["voice", "voice.ogg"],
  ["video_note", "video_note.mp4"],
  ["video", "video.mp4"],
  ["audio", "audio.mp3"],
  ["document", "document"],
  ["photo", "photo.jpg"],
];

/** A sticker is a WebP picture, a gzipped Lottie animation (.tgs) or a WebM video. */
function stickerName(sticker: JsonObject): string {
  return sticker.is_animated === true ? "sticker.tgs" : sticker.is_video === true ? "sticker.webm" : "sticker.webp";
}

/** The text as a string; undefined when absent, null when it has a type no text has. */
function readText(raw: JsonObject, key: "text" | "caption"): string | undefined | null {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

function readUser(value: unknown): TgUser | undefined {
  const raw = objectOf(value);
  const id = integerOf(raw?.id);
  if (raw === undefined || id === undefined) return undefined;
  const user: TgUser = { id, first_name: stringOf(raw.first_name) ?? "" };
  assignString(user, "last_name", raw.last_name);
  assignString(user, "username", raw.username);
  return user;
}

function readChat(value: unknown): TgChat | undefined {
  const raw = objectOf(value);
  const id = integerOf(raw?.id);
  if (raw === undefined || id === undefined) return undefined;
  const chat: TgChat = { id };
  assignString(chat, "title", raw.title);
  assignString(chat, "username", raw.username);
  return chat;
}

function readEntity(value: unknown): TgEntity | undefined {
  const raw = objectOf(value);
  const type = stringOf(raw?.type);
  const offset = integerOf(raw?.offset);
  const length = integerOf(raw?.length);
  if (raw === undefined || type === undefined || offset === undefined || length === undefined) return undefined;
  const entity: TgEntity = { type, offset, length };
  assignString(entity, "url", raw.url);
  return entity;
}

function readForwardOrigin(value: unknown): TgForwardOrigin | undefined {
  const raw = objectOf(value);
  if (raw === undefined) return undefined;
  switch (raw.type) {
    case "user": {
      const user = readUser(raw.sender_user);
      return user === undefined ? { type: "user" } : { type: "user", sender_user: user };
    }
    case "hidden_user": {
      const name = stringOf(raw.sender_user_name);
      return name === undefined ? { type: "hidden_user" } : { type: "hidden_user", sender_user_name: name };
    }
    case "chat": {
      const chat = readChat(raw.sender_chat);
      return chat === undefined ? { type: "chat" } : { type: "chat", sender_chat: chat };
    }
    case "channel": {
      const chat = readChat(raw.chat);
      return chat === undefined ? { type: "channel" } : { type: "channel", chat };
    }
    default:
      return { type: "other" };
  }
}

function assignString<T extends object>(target: T, key: keyof T & string, value: unknown): void {
  if (typeof value === "string") (target as Record<string, unknown>)[key] = value;
}
