// Rocket.Chat messages as the account reads them, from a DDP `changed` frame of stream-room-messages (dates as
// {$date}) or from chat.syncMessages (ISO dates), decoded from JSON it does not trust: the fields the bridge uses,
// each with its type checked. Without an id, a room id or a sender id it is malformed (skipped with a log line).
import { integerOf, listOf, objectOf, stringOf } from "../json-fields.ts";

export interface RcMessage {
  id: string;
  roomId: string;
  text: string;
  userId: string;
  username: string;
  /** The name an integration or the bridge posted under. */
  alias: string;
  avatar: string;
  threadId: string;
  /** System message type ("uj", "ul", "room_changed_topic", "rm"...); "" for a user's message. */
  type: string;
  edited: boolean;
  /** Milliseconds; orders changes and says where reading back starts. */
  updatedAt: number;
  /** Links of attached files (relative to the server or absolute). */
  files: string[];
}

/** A date as EJSON {$date: ms} or an ISO string; undefined when neither. */
function dateOf(value: unknown): number | undefined {
  const ejson = integerOf(objectOf(value)?.$date);
  if (ejson !== undefined) return ejson;
  const text = stringOf(value);
  const parsed = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(parsed) ? undefined : parsed;
}

function filesOf(raw: Record<string, unknown>): string[] {
  const links: string[] = [];
  const file = objectOf(raw.file);
  const fileId = stringOf(file?._id);
  if (fileId) links.push(`/file-upload/${fileId}/${encodeURIComponent(stringOf(file?.name) ?? "file")}`);
  for (const attachment of listOf(raw.attachments, objectOf) ?? []) {
    const link = stringOf(attachment.title_link);
    if (link && !links.includes(link)) links.push(link);
  }
  return links;
}

export function readMessage(value: unknown): RcMessage | string {
  const raw = objectOf(value);
  if (raw === undefined) return "the message is not an object";
  const id = stringOf(raw._id);
  const roomId = stringOf(raw.rid);
  const user = objectOf(raw.u);
  const userId = stringOf(user?._id);
  if (!id || !roomId || userId === undefined) return "the message has no _id, rid or u._id";
  return {
    id,
    roomId,
    text: stringOf(raw.msg) ?? "",
    userId,
    username: stringOf(user?.username) ?? "",
    alias: stringOf(raw.alias) ?? "",
    avatar: stringOf(raw.avatar) ?? "",
    threadId: stringOf(raw.tmid) ?? "",
    type: stringOf(raw.t) ?? "",
    edited: raw.editedAt !== undefined && raw.editedAt !== null,
    updatedAt: dateOf(raw._updatedAt) ?? dateOf(raw.ts) ?? 0,
    files: filesOf(raw),
  };
}

/** What a DDP `changed` frame's fields carry: a room's message, or a deletion in a room. */
export type RealtimeChange =
  | { kind: "message"; message: RcMessage }
  | { kind: "deleted"; roomId: string; id: string }
  | { kind: "other" };

export function readChange(collection: string, fields: unknown): RealtimeChange | string {
  const raw = objectOf(fields);
  const eventName = stringOf(raw?.eventName);
  const first = listOf(raw?.args, (entry) => entry)?.[0];
  if (raw === undefined || eventName === undefined) return "the change has no eventName";
  if (collection === "stream-room-messages") {
    const message = readMessage(first);
    return typeof message === "string" ? message : { kind: "message", message };
  }
  if (collection === "stream-notify-room" && eventName.endsWith("/deleteMessage")) {
    const id = stringOf(objectOf(first)?._id);
    if (!id) return "the deletion names no message";
    return { kind: "deleted", roomId: eventName.slice(0, -"/deleteMessage".length), id };
  }
  return { kind: "other" };
}
