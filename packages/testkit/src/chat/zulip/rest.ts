// The REST routes of Zulip's API that the bridge and zulip-js use (zulip.com/api), answering as Zulip does: JSON
// `{result: "success", msg: "", ...}`, errors as `{result: "error", msg, code}` with their HTTP status, HTTP Basic
// auth with a user's email and API key, parameters from the query string or a form body (urlencoded or multipart),
// JSON-encoded where Zulip wants it (narrow, event_types, subscriptions).
import type { EventQueues, ZulipEvent } from "./queues.ts";
import type { ZulipMessage, ZulipStream, ZulipUser, ZulipWorld } from "./world.ts";

export interface RestAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** A route answers now, or later (a held long poll) through `later`. */
export type Handler = (
  params: URLSearchParams,
  me: ZulipUser,
  match: string[],
  later: (answer: RestAnswer) => void,
) => RestAnswer | undefined;

export interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
}

/** What the server does beside answering: tell the event queues. */
export interface RestEffects {
  posted(message: ZulipMessage): void;
  edited(message: ZulipMessage, editor: ZulipUser, origContent: string): void;
  deleted(message: ZulipMessage): void;
}

export const MAX_MESSAGE_LENGTH = 10_000;
export const MAX_TOPIC_LENGTH = 60;

export const success = (fields: Record<string, unknown> = {}, status = 200): RestAnswer => ({
  status,
  body: { result: "success", msg: "", ...fields },
});
export const zulipError = (status: number, msg: string, code = "BAD_REQUEST", extra = {}): RestAnswer => ({
  status,
  body: { result: "error", msg, code, ...extra },
});

function jsonParam(params: URLSearchParams, name: string): unknown {
  const raw = params.get(name);
  if (raw === null) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Zulip truncates an over-long message rather than refusing it. */
function truncated(content: string): string {
  if (content.length <= MAX_MESSAGE_LENGTH) return content;
  const marker = "\n[message truncated]";
  return content.slice(0, MAX_MESSAGE_LENGTH - marker.length) + marker;
}

export function restRoutes(world: ZulipWorld, queues: EventQueues, effects: RestEffects): Route[] {
  const route = (method: string, path: string, handler: Handler): Route => ({
    method,
    pattern: new RegExp(`^/api/v1${path.replace(/:\w+/g, "(\\d+)")}$`),
    handler,
  });
  const streamOf = (value: unknown): ZulipStream | undefined => {
    if (typeof value === "number") return world.streams.get(value);
    const text = String(value ?? "");
    return /^\d+$/.test(text) ? world.streams.get(Number(text)) : world.streamByName(text);
  };
  const matchesNarrow = (message: ZulipMessage, narrow: unknown): boolean => {
    if (!Array.isArray(narrow)) return true;
    return narrow.every((term: { operator?: unknown; operand?: unknown; negated?: unknown }) => {
      let matched = true;
      if (term.operator === "stream" || term.operator === "channel")
        matched = streamOf(term.operand)?.stream_id === message.stream_id;
      else if (term.operator === "topic")
        matched = String(term.operand).toLowerCase() === message.subject.toLowerCase();
      return term.negated === true ? !matched : matched;
    });
  };
  const ownMessage = (id: string | undefined, me: ZulipUser): ZulipMessage | RestAnswer => {
    const message = world.messages.get(Number(id));
    if (message === undefined) return zulipError(400, "Invalid message(s)");
    if (message.sender_id !== me.user_id) return zulipError(400, "You don't have permission to edit this message");
    return message;
  };

  return [
    route("GET", "/users/me", (_params, me) =>
      success({
        user_id: me.user_id,
        email: me.email,
        full_name: me.full_name,
        is_bot: me.is_bot,
        avatar_url: me.avatar_url,
        is_admin: false,
      }),
    ),
    route("POST", "/register", (params, me) => {
      const types = jsonParam(params, "event_types");
      const queue = queues.register(me.user_id, Array.isArray(types) ? types.map(String) : undefined);
      const maxId = Math.max(-1, ...world.messages.keys());
      return success({
        queue_id: queue.queueId,
        last_event_id: -1,
        zulip_version: "9.2",
        zulip_feature_level: 278,
        max_message_id: maxId,
      });
    }),
    route("GET", "/events", (params, me, _match, later) => {
      const queueId = params.get("queue_id") ?? "";
      const queue = queues.get(queueId);
      if (queue === undefined || queue.userId !== me.user_id) {
        return zulipError(400, `Bad event queue ID: ${queueId}`, "BAD_EVENT_QUEUE_ID", { queue_id: queueId });
      }
      const last = Number(params.get("last_event_id") ?? "-1");
      queues.poll(queue, last, params.get("dont_block") === "true", (events: ZulipEvent[]) =>
        later(success({ events, queue_id: queueId })),
      );
      return undefined;
    }),
    route("DELETE", "/events", (params) => {
      const queueId = params.get("queue_id") ?? "";
      if (queues.get(queueId) === undefined)
        return zulipError(400, `Bad event queue ID: ${queueId}`, "BAD_EVENT_QUEUE_ID");
      queues.remove(queueId, (answer) => answer([]));
      return success();
    }),
    route("POST", "/messages", (params, me) => {
      const type = params.get("type");
      if (type !== "stream" && type !== "channel") return zulipError(400, "Invalid message type");
      const to = jsonParam(params, "to");
      const stream = streamOf(Array.isArray(to) ? to[0] : to);
      if (stream === undefined) {
        return zulipError(400, `Channel '${String(to)}' does not exist`, "STREAM_DOES_NOT_EXIST", {
          stream: String(to),
        });
      }
      const topic = (params.get("topic") ?? params.get("subject") ?? "").trim();
      const content = params.get("content") ?? "";
      if (content.trim() === "") return zulipError(400, "Message must not be empty");
      const message = world.newMessage(stream, me, topic.slice(0, MAX_TOPIC_LENGTH), truncated(content));
      effects.posted(message);
      return success({ id: message.id });
    }),
    route("GET", "/messages", (params, me) => {
      const narrow = jsonParam(params, "narrow");
      const anchorParam = params.get("anchor") ?? "newest";
      const before = Number(params.get("num_before") ?? "0");
      const after = Number(params.get("num_after") ?? "0");
      const includeAnchor = params.get("include_anchor") !== "false";
      const visible = [...world.messages.values()]
        .filter((m) => world.streams.get(m.stream_id)?.subscribers.has(me.user_id) && matchesNarrow(m, narrow))
        .sort((a, b) => a.id - b.id);
      const maxId = visible.at(-1)?.id ?? 0;
      const anchor = anchorParam === "newest" ? maxId : anchorParam === "oldest" ? 0 : Number(anchorParam);
      const earlier = visible.filter((m) => m.id < anchor);
      const older = before > 0 ? earlier.slice(-before) : [];
      const atAnchor = includeAnchor ? visible.filter((m) => m.id === anchor) : [];
      const newer = visible.filter((m) => m.id > anchor).slice(0, after);
      const messages = [...older, ...atAnchor, ...newer];
      return success({
        messages,
        anchor,
        found_anchor: atAnchor.length > 0,
        found_newest: newer.length < after || visible.every((m) => m.id <= anchor),
        found_oldest: older.length === earlier.length,
        history_limited: false,
      });
    }),
    route("GET", "/messages/:id", (_params, me, [id]) => {
      const message = world.messages.get(Number(id));
      const stream = message === undefined ? undefined : world.streams.get(message.stream_id);
      if (message === undefined || !stream?.subscribers.has(me.user_id)) return zulipError(400, "Invalid message(s)");
      return success({ message, raw_content: message.content });
    }),
    route("PATCH", "/messages/:id", (params, me, [id]) => {
      const found = ownMessage(id, me);
      if ("status" in found) return found;
      const content = params.get("content");
      const origContent = found.content;
      if (content !== null) found.content = truncated(content);
      const topic = params.get("topic");
      if (topic !== null) found.subject = topic.slice(0, MAX_TOPIC_LENGTH);
      found.last_edit_timestamp = Math.floor(Date.now() / 1000);
      effects.edited(found, me, origContent);
      return success();
    }),
    route("DELETE", "/messages/:id", (_params, me, [id]) => {
      const found = ownMessage(id, me);
      if ("status" in found) return found;
      world.messages.delete(found.id);
      effects.deleted(found);
      return success();
    }),
    route("GET", "/get_stream_id", (params) => {
      const stream = world.streamByName(params.get("stream") ?? "");
      if (stream === undefined) return zulipError(400, `Invalid channel name '${params.get("stream") ?? ""}'`);
      return success({ stream_id: stream.stream_id });
    }),
    route("POST", "/users/me/subscriptions", (params, me) => {
      const wanted = jsonParam(params, "subscriptions");
      if (!Array.isArray(wanted)) return zulipError(400, 'Argument "subscriptions" is not valid JSON.');
      const subscribed: string[] = [];
      const already: string[] = [];
      for (const entry of wanted as { name?: unknown }[]) {
        const name = String(entry?.name ?? "");
        const stream = world.streamByName(name) ?? world.addStream(name, []);
        (stream.subscribers.has(me.user_id) ? already : subscribed).push(stream.name);
        stream.subscribers.add(me.user_id);
      }
      return success({
        subscribed: subscribed.length > 0 ? { [me.email]: subscribed } : {},
        already_subscribed: already.length > 0 ? { [me.email]: already } : {},
      });
    }),
  ];
}
