// A Graph chatMessage read from JSON without trusting its shape: the fields the account uses, each checked for its
// type, or a reason why it cannot be read. Times become milliseconds.
import { arrayOf, type JsonObject, objectOf, stringOf } from "../json-fields.ts";
import { htmlToText } from "./html.ts";

export interface TeamsMessage {
  id: string;
  /** The root's id for a reply; undefined for a root. */
  replyToId: string | undefined;
  messageType: string;
  created: number;
  modified: number;
  edited: number | undefined;
  deleted: boolean;
  fromUserId: string;
  /** The user's (or the bot's) display name. */
  fromName: string;
  /** The body as text (HTML converted). */
  text: string;
  /** Links of attached files. */
  files: string[];
}

const time = (value: unknown): number | undefined => {
  const text = stringOf(value);
  const ms = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
};

export function readTeamsMessage(value: unknown): TeamsMessage | string {
  const raw: JsonObject | undefined = objectOf(value);
  if (raw === undefined) return "a message is not an object";
  const id = stringOf(raw.id);
  if (id === undefined || id === "" || id.includes("/")) return "a message has no id";
  const modified = time(raw.lastModifiedDateTime) ?? time(raw.createdDateTime);
  if (modified === undefined) return `message ${id} has no time`;
  const replyToId = stringOf(raw.replyToId);
  const from = objectOf(raw.from);
  const user = objectOf(from?.user);
  const app = objectOf(from?.application);
  const body = objectOf(raw.body);
  const content = stringOf(body?.content) ?? "";
  const files: string[] = [];
  for (const attachment of arrayOf(raw.attachments) ?? []) {
    const url = stringOf(objectOf(attachment)?.contentUrl);
    if (url !== undefined && /^https?:\/\//i.test(url)) files.push(url);
  }
  return {
    id,
    replyToId: replyToId === "" || replyToId?.includes("/") ? undefined : replyToId,
    messageType: stringOf(raw.messageType) ?? "message",
    created: time(raw.createdDateTime) ?? modified,
    modified,
    edited: time(raw.lastEditedDateTime),
    deleted: raw.deletedDateTime !== null && raw.deletedDateTime !== undefined,
    fromUserId: stringOf(user?.id) ?? stringOf(app?.id) ?? "",
    fromName: stringOf(user?.displayName) ?? stringOf(app?.displayName) ?? "",
    text: stringOf(body?.contentType)?.toLowerCase() === "text" ? content : htmlToText(content),
    files,
  };
}

/** A thread as listed with $expand=replies: its root, then its replies. */
export function threadEntries(value: unknown): unknown[] {
  const root = objectOf(value);
  if (root === undefined) return [value];
  return [value, ...(arrayOf(root.replies) ?? [])];
}
