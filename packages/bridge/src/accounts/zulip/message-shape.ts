// Zulip's events and messages as the account reads them, decoded from JSON it does not trust: the fields the bridge
// uses, each with its type checked. A message event without an id, a sender or a stream is malformed (skipped with a
// log line); optional fields of the wrong type are left out.
import { integerOf, listOf, objectOf, stringOf } from "../json-fields.ts";

export interface ZulipMessage {
  id: number;
  senderId: number;
  senderEmail: string;
  senderName: string;
  avatarUrl: string;
  /** Markdown (the queue is registered with apply_markdown=false). */
  content: string;
  stream: string;
  streamId: number;
  topic: string;
}

export type ZulipEvent =
  | { type: "message"; id: number; message: ZulipMessage }
  | { type: "edit"; id: number; messageId: number; userId: number; content: string; streamId: number | undefined }
  | { type: "delete"; id: number; messageIds: number[]; streamId: number | undefined; topic: string | undefined }
  | { type: "other"; id: number };

/** A stream message, undefined for a direct message, or why it cannot be one. */
export function readMessage(value: unknown): ZulipMessage | undefined | string {
  const raw = objectOf(value);
  if (raw === undefined) return "the message is not an object";
  if (raw.type === "private") return undefined;
  const id = integerOf(raw.id);
  const senderId = integerOf(raw.sender_id);
  const streamId = integerOf(raw.stream_id);
  const stream = stringOf(raw.display_recipient);
  if (id === undefined || senderId === undefined || streamId === undefined || stream === undefined) {
    return "the message has no id, sender_id, stream_id or stream name";
  }
  return {
    id,
    senderId,
    senderEmail: stringOf(raw.sender_email) ?? "",
    senderName: stringOf(raw.sender_full_name) ?? "",
    avatarUrl: stringOf(raw.avatar_url) ?? "",
    content: stringOf(raw.content) ?? "",
    stream,
    streamId,
    topic: stringOf(raw.subject) ?? stringOf(raw.topic) ?? "",
  };
}

/** One event of the queue, or why it cannot be read. An event without a numeric id cannot even be acknowledged. */
export function readEvent(value: unknown): ZulipEvent | string {
  const raw = objectOf(value);
  const id = integerOf(raw?.id);
  if (raw === undefined || id === undefined) return "the event has no id";
  switch (raw.type) {
    case "message": {
      const message = readMessage(raw.message);
      if (typeof message === "string") return message;
      return message === undefined ? { type: "other", id } : { type: "message", id, message };
    }
    case "update_message": {
      const messageId = integerOf(raw.message_id);
      const content = stringOf(raw.content);
      // A topic move or a re-rendering changes no text: nothing to relay.
      if (messageId === undefined || content === undefined || raw.rendering_only === true) return { type: "other", id };
      const userId = integerOf(raw.user_id) ?? -1;
      return { type: "edit", id, messageId, userId, content, streamId: integerOf(raw.stream_id) };
    }
    case "delete_message": {
      const single = integerOf(raw.message_id);
      const messageIds = single !== undefined ? [single] : (listOf(raw.message_ids, integerOf) ?? []);
      if (messageIds.length === 0) return "the delete_message event names no message";
      return { type: "delete", id, messageIds, streamId: integerOf(raw.stream_id), topic: stringOf(raw.topic) };
    }
    default:
      if (typeof raw.type !== "string") return "the event has no type";
      return { type: "other", id };
  }
}
