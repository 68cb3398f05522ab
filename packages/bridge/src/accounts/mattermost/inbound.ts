// What a Mattermost post means for the bridge, from a WebSocket event (posted, post_edited, post_deleted) or from the
// posts read back after a reconnect: a text (a reply names its thread's root), an action (a /me post, or a text in
// single asterisks as Matterbridge reads it), an edit, a delete, a join or leave — or nothing (the bridge's own
// posts, other system messages). Pure: the connection resolves names.
//
// The bridge's own posts are recognised by every mark they keep: the account's user id, the `from_switchboard` prop
// it writes on each post (a post made through a webhook or by another account of this bridge carries another user
// id), and the ids of the posts it made (which survive a server that drops props).
import { Events } from "../../message.ts";

export interface MattermostPost {
  id: string;
  user_id: string;
  channel_id: string;
  root_id?: string;
  message: string;
  type?: string;
  props?: Record<string, unknown>;
  file_ids?: string[];
  /** metadata.files: the attached files' names and sizes, when the server includes them. */
  files?: { id: string; name: string; size: number }[];
  create_at?: number;
  update_at?: number;
  edit_at?: number;
  delete_at?: number;
}

export type Change = "posted" | "edited" | "deleted";

export type Inbound =
  | { kind: "ignore" }
  | { kind: "delete"; id: string }
  | {
      kind: "text";
      id: string;
      parentId: string;
      text: string;
      event: string;
      userId: string;
      /** The name a webhook or bot posted under (props.override_username). */
      postedAs: string | undefined;
      edited: boolean;
      /** The files of a new post (an edit carries its text only). */
      files: MattermostFile[];
    };

export interface MattermostFile {
  id: string;
  name: string;
  size: number;
}

const IGNORE: Inbound = { kind: "ignore" };
const JOIN_LEAVE = new Set([
  "system_join_channel",
  "system_leave_channel",
  "system_join_leave",
  "system_add_to_channel",
  "system_remove_from_channel",
]);

/** Matterbridge reads a message in single asterisks as an action (what it sends for one). */
function asAction(text: string): { text: string; action: boolean } {
  const match = /^\*(?!\*)([\s\S]*[^*])\*$/.exec(text);
  return match ? { text: match[1] as string, action: true } : { text, action: false };
}

export interface InterpretOptions {
  editDisable: boolean;
  /** Whether the account made the post with this id. */
  postedByUs?(id: string): boolean;
}

/** Whether a post is one the bridge made (this account, or another account of a Switchboard bridge). */
function isOwnPost(post: MattermostPost, ownUserId: string, options: InterpretOptions): boolean {
  return post.user_id === ownUserId || post.props?.from_switchboard === true || options.postedByUs?.(post.id) === true;
}

export function interpret(post: MattermostPost, change: Change, ownUserId: string, options: InterpretOptions): Inbound {
  if (isOwnPost(post, ownUserId, options)) return IGNORE;
  if (change === "deleted") return { kind: "delete", id: post.id };
  if (change === "edited" && options.editDisable) return IGNORE;
  const type = post.type ?? "";
  if (JOIN_LEAVE.has(type)) {
    if (change === "edited") return IGNORE;
    const base = { kind: "text" as const, id: post.id, parentId: "", userId: post.user_id, postedAs: undefined };
    return { ...base, text: post.message, event: Events.joinLeave, edited: false, files: [] };
  }
  if (type !== "" && type !== "me") return IGNORE;
  const edited = change === "edited";
  const files = edited ? [] : (post.file_ids ?? []).map((id) => fileOf(post, id));
  const { text, action } = type === "me" ? { text: post.message, action: true } : asAction(post.message);
  if (text.trim() === "" && files.length === 0) return IGNORE;
  const override = post.props?.override_username;
  return {
    kind: "text",
    id: post.id,
    parentId: post.root_id ?? "",
    text,
    event: action ? Events.userAction : "",
    userId: post.user_id,
    postedAs: typeof override === "string" && override !== "" ? override : undefined,
    edited,
    files,
  };
}

/** A file id of the post, named and sized by its metadata when the server gave it. */
function fileOf(post: MattermostPost, id: string): MattermostFile {
  const info = post.files?.find((file) => file.id === id);
  return { id, name: info?.name || "file", size: info?.size ?? 0 };
}
