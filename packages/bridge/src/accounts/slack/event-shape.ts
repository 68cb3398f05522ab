// A Slack `message` event as the account reads it, decoded from JSON it does not trust: the fields the bridge uses,
// each with its type checked, fields of the wrong type left out. Anything that is not an object with a string `type`
// is malformed (skipped with a log line by the connection).
import { listOf, objectOf, stringOf } from "../json-fields.ts";
import type { SlackEvent } from "./inbound.ts";

const STRING_FIELDS = [
  "subtype",
  "channel",
  "user",
  "bot_id",
  "app_id",
  "username",
  "text",
  "ts",
  "thread_ts",
  "deleted_ts",
] as const;

/** An event, or why it cannot be one. */
export function readEvent(value: unknown, depth = 0): SlackEvent | string {
  const raw = objectOf(value);
  if (raw === undefined) return "the event is not an object";
  const type = stringOf(raw.type);
  // A nested message (message_changed) may leave its type out.
  if (type === undefined && depth === 0) return "the event has no type";
  const event: SlackEvent = { type: type ?? "message" };
  for (const key of STRING_FIELDS) {
    const field = stringOf(raw[key]);
    if (field !== undefined) event[key] = field;
  }
  const profileApp = stringOf(objectOf(raw.bot_profile)?.app_id);
  if (profileApp !== undefined) event.bot_profile = { app_id: profileApp };
  const edited = objectOf(raw.edited);
  if (edited !== undefined) event.edited = { user: stringOf(edited.user), ts: stringOf(edited.ts) };
  if (depth === 0) {
    for (const key of ["message", "previous_message"] as const) {
      const nested = raw[key] === undefined ? undefined : readEvent(raw[key], depth + 1);
      if (nested !== undefined && typeof nested !== "string") event[key] = nested;
    }
  }
  const files = listOf(raw.files, (entry) => {
    const file = objectOf(entry);
    if (file === undefined) return undefined;
    const size = file.size;
    return {
      name: stringOf(file.name),
      permalink: stringOf(file.permalink),
      url_private: stringOf(file.url_private),
      url_private_download: stringOf(file.url_private_download),
      size: typeof size === "number" && Number.isSafeInteger(size) && size >= 0 ? size : undefined,
    };
  });
  if (files !== undefined) event.files = files;
  return event;
}
