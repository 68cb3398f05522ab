// A post as the account reads it from a WebSocket event (`data.post`, a JSON string) or from the posts read back
// after a reconnect, decoded from JSON it does not trust: the fields the bridge uses, each with its type checked.
// Without an id, a user id or a channel id it is malformed (skipped with a log line); optional fields of the wrong
// type are left out.
import { integerOf, listOf, objectOf, stringOf } from "../json-fields.ts";
import type { MattermostPost } from "./inbound.ts";

/** A post, or why it cannot be one. */
export function readPost(value: unknown): MattermostPost | string {
  const raw = objectOf(value);
  if (raw === undefined) return "the post is not an object";
  const id = stringOf(raw.id);
  const userId = stringOf(raw.user_id);
  const channelId = stringOf(raw.channel_id);
  if (!id || userId === undefined || !channelId) return "the post has no id, user_id or channel_id";
  const post: MattermostPost = { id, user_id: userId, channel_id: channelId, message: stringOf(raw.message) ?? "" };
  const rootId = stringOf(raw.root_id);
  if (rootId !== undefined) post.root_id = rootId;
  const type = stringOf(raw.type);
  if (type !== undefined) post.type = type;
  const props = objectOf(raw.props);
  if (props !== undefined) post.props = props;
  const files = listOf(raw.file_ids, stringOf);
  if (files !== undefined) post.file_ids = files;
  const infos = listOf(objectOf(raw.metadata)?.files, (entry) => {
    const info = objectOf(entry);
    const id = stringOf(info?.id);
    return id === undefined ? undefined : { id, name: stringOf(info?.name) ?? "", size: integerOf(info?.size) ?? 0 };
  });
  if (infos !== undefined) post.files = infos;
  for (const key of ["create_at", "update_at", "edit_at", "delete_at"] as const) {
    const time = integerOf(raw[key]);
    if (time !== undefined) post[key] = time;
  }
  return post;
}

/** The post a WebSocket event's `data` carries as a JSON string, or why there is none to read. */
export function postOfEvent(data: unknown): MattermostPost | string {
  const text = stringOf(objectOf(data)?.post);
  if (text === undefined) return "the event's data has no post";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return "the event's post is not JSON";
  }
  return readPost(parsed);
}
