// Validation of a message a client posts (POST /api/message or a websocket frame). Every problem is a designed
// 400 with a message saying what to fix; nothing a client sends reaches the router unchecked.
import { Events, MESSAGE_FIELDS, type Message } from "../../message.ts";
import type { PostedBody } from "./body-reader.ts";
import { parseExtra } from "./extra.ts";
import { parseFormBody } from "./form-body.ts";
import { InboundError } from "./inbound-error.ts";
import { jsonShapeProblem } from "./json-shape.ts";
import { MAX_FIELD_LENGTH } from "./limits.ts";

/** Events a client may post; the rest are internal (get_channel_members crashes Matterbridge) or need ids. */
const CLIENT_EVENTS: readonly string[] = [
  "",
  Events.userAction,
  Events.joinLeave,
  Events.topicChange,
  Events.userTyping,
];

type StringField = Exclude<(typeof MESSAGE_FIELDS)[number], "Extra">;
const STRING_FIELDS: ReadonlySet<string> = new Set(MESSAGE_FIELDS.filter((field) => field !== "Extra"));

export { InboundError };

/** Where an account may post: gateway name -> its channel there. */
export type PostTargets = ReadonlyMap<string, string>;

function bad(message: string): never {
  throw new InboundError(400, message);
}

/** Checks the shape of the raw JSON (depth, number of values) before decoding and parsing it. */
function parseJson(bytes: Buffer): unknown {
  const problem = jsonShapeProblem(bytes);
  if (problem !== undefined) bad(problem);
  const text = bytes.toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // Only a body that is not JSON can be blank: looked at here, not trimmed on every post.
    if (text.trim() === "")
      bad('empty body: send a JSON message such as {"text":"hi","username":"me","gateway":"..."}');
    bad(`invalid JSON: ${error instanceof Error ? error.message : "syntax error"}`);
  }
}

/** The message fields of a posted body, JSON or form, before validation. */
export function parseBody(body: PostedBody): unknown {
  return body.format === "form" ? parseFormBody(body.bytes) : parseJson(body.bytes);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "array" : typeof value;
}

function targetsText(targets: PostTargets): string {
  const names = [...targets.keys()];
  return names.length > 0 ? `this account can post to: ${names.join(", ")}` : "this account cannot post to any gateway";
}

/**
 * Builds the Message an api account injects. Keys match case-insensitively, like Matterbridge's Go decoder.
 * channel/protocol/account/id/timestamp from the client are ignored (set by the service), as in Matterbridge.
 */
export function toMessage(body: unknown, accountId: string, targets: PostTargets, timestamp: string): Message {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    bad(`the body must be a JSON object (a Message), not ${describe(body)}`);
  }
  const fields: Partial<Record<StringField, string>> = {};
  let extra: unknown = null;
  const record = body as Record<string, unknown>;
  // Own keys in Object.entries' order, without an entry array per member (the body's own data properties only).
  for (const rawKey of Object.keys(record)) {
    const value = record[rawKey];
    const key = rawKey.toLowerCase();
    if (key === "extra") {
      extra = value;
      continue;
    }
    if (!STRING_FIELDS.has(key)) continue;
    if (value === null) continue;
    if (typeof value !== "string") bad(`field "${key}" must be a string, not ${describe(value)}`);
    const longest = MAX_FIELD_LENGTH.get(key);
    if (longest !== undefined && value.length > longest) {
      bad(`field "${key}" is longer than ${longest} characters`);
    }
    fields[key as StringField] = value;
  }
  const Extra = parseExtra(extra);

  const event = fields.event ?? "";
  if (!CLIENT_EVENTS.includes(event)) {
    bad(`event "${event}" cannot be posted; allowed: "" (a normal message), ${CLIENT_EVENTS.slice(1).join(", ")}`);
  }
  const text = fields.text ?? "";
  if (text.trim() === "" && event !== Events.userTyping && !Extra?.["file"]?.length) {
    bad("text is empty: nothing to send (send text, or files in Extra.file)");
  }
  const gateway = fields.gateway ?? "";
  if (gateway === "") bad(`field "gateway" is missing; ${targetsText(targets)}`);
  const channel = targets.get(gateway);
  if (channel === undefined) bad(`gateway "${gateway}" is not one this account can post to; ${targetsText(targets)}`);

  return {
    text,
    channel,
    username: fields.username ?? "",
    userid: fields.userid ?? "",
    avatar: fields.avatar ?? "",
    account: accountId,
    event,
    protocol: "api",
    gateway,
    parent_id: fields.parent_id ?? "",
    timestamp,
    id: "",
    Extra,
  };
}
