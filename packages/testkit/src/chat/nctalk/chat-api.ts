// Talk's chat endpoints under /ocs/v2.php/apps/spreed/api/v1/chat/{token}, answering as the Chat API documentation
// says: receive (history, or a long poll with lookIntoFuture=1 that waits up to `timeout` seconds and answers 304
// when nothing came), send (201, 400 for an empty message or a bad replyTo, 413 past 32,000 characters), edit (PUT,
// own comments only, announced by a `message_edited` system message) and delete (announced by `message_deleted`,
// the original becoming a `comment_deleted`). X-Chat-Last-Given is the offset for the next request.
import type { Room, StoredMessage, TalkMessage, TalkWorld } from "./world.ts";

export const MAX_MESSAGE_LENGTH = 32_000;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 200;
const DEFAULT_TIMEOUT_S = 30;
const MAX_TIMEOUT_S = 60;

export interface OcsAnswer {
  status: number;
  /** undefined: no body (304). */
  data?: unknown;
  message?: string;
  headers?: Record<string, string>;
}

export interface ChatRequest {
  method: string;
  room: Room;
  messageId: number | undefined;
  query: URLSearchParams;
  body: Record<string, unknown>;
  me: string;
  /** Resolves when the request's connection closes (a long poll stops waiting). */
  closed: Promise<void>;
}

/** What the server does beside answering: record who did what, and let a long poll wait for the next message. */
export interface ChatEffects {
  acted(
    room: Room,
    message: StoredMessage,
    by: string,
    kind: "post" | "edit" | "delete",
    body: Record<string, unknown>,
  ): void;
  /** Resolves at the room's next message, or when `timeoutMs` or `closed` ends the wait. */
  waitForMessage(room: Room, timeoutMs: number, closed: Promise<void>): Promise<void>;
}

const failure = (status: number, message = ""): OcsAnswer => ({ status, data: [], message });
const intParam = (query: URLSearchParams, name: string, fallback: number): number => {
  const value = Number.parseInt(query.get(name) ?? "", 10);
  return Number.isFinite(value) ? value : fallback;
};
const text = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : "";

export async function chatApi(world: TalkWorld, effects: ChatEffects, request: ChatRequest): Promise<OcsAnswer> {
  const { room, me } = request;
  if (!room.participants.has(me)) return failure(404);
  if (request.messageId === undefined) {
    if (request.method === "GET") return receive(world, effects, request);
    if (request.method === "POST") return send(world, effects, request);
    return failure(405);
  }
  const target = world.message(room, request.messageId);
  if (target === undefined) return failure(404);
  if (request.method === "PUT") return edit(world, effects, request, target);
  if (request.method === "DELETE") return remove(world, effects, request, target);
  return failure(405);
}

async function receive(world: TalkWorld, effects: ChatEffects, request: ChatRequest): Promise<OcsAnswer> {
  const { room, query } = request;
  const limit = Math.min(Math.max(intParam(query, "limit", DEFAULT_LIMIT), 1), MAX_LIMIT);
  const lastKnown = intParam(query, "lastKnownMessageId", 0);
  const includeLastKnown = query.get("includeLastKnown") === "1";
  if (query.get("lookIntoFuture") !== "1") {
    const older = room.messages
      .filter((m) => lastKnown <= 0 || m.id < lastKnown || (includeLastKnown && m.id === lastKnown))
      .reverse()
      .slice(0, limit);
    return given(world, room, older);
  }
  const newer = () => room.messages.filter((m) => m.id > lastKnown || (includeLastKnown && m.id === lastKnown));
  if (newer().length === 0) {
    const timeout = Math.min(Math.max(intParam(query, "timeout", DEFAULT_TIMEOUT_S), 0), MAX_TIMEOUT_S);
    await effects.waitForMessage(room, timeout * 1000, request.closed);
  }
  return given(world, room, newer().slice(0, limit));
}

function given(world: TalkWorld, room: Room, messages: StoredMessage[]): OcsAnswer {
  const last = messages.at(-1);
  if (last === undefined) return { status: 304 };
  return {
    status: 200,
    data: messages.map((m) => world.shown(room, m)),
    headers: { "X-Chat-Last-Given": String(last.id) },
  };
}

function send(world: TalkWorld, effects: ChatEffects, request: ChatRequest): OcsAnswer {
  const { room, body, me } = request;
  const message = text(body.message);
  if (message.trim() === "") return failure(400);
  if ([...message].length > MAX_MESSAGE_LENGTH) return failure(413);
  const replyTo = Number.parseInt(text(body.replyTo), 10);
  let parentId: number | undefined;
  if (Number.isFinite(replyTo) && replyTo > 0) {
    const parent = world.message(room, replyTo);
    if (parent === undefined || parent.messageType !== "comment" || !parent.isReplyable) return failure(400);
    parentId = parent.id;
  }
  const user = world.users.get(me);
  const stored = world.append(room, {
    actorType: "users",
    actorId: me,
    actorDisplayName: user?.displayName ?? me,
    message,
    referenceId: text(body.referenceId).slice(0, 64),
    ...(parentId === undefined ? {} : { parentId }),
  });
  effects.acted(room, stored, me, "post", body);
  return { status: 201, data: world.shown(room, stored) };
}

function edit(world: TalkWorld, effects: ChatEffects, request: ChatRequest, target: StoredMessage): OcsAnswer {
  const { room, me } = request;
  if (target.messageType !== "comment") return failure(405);
  if (target.actorType !== "users" || target.actorId !== me) return failure(403);
  const message = text(request.body.message);
  if (message.trim() === "") return failure(400);
  if ([...message].length > MAX_MESSAGE_LENGTH) return failure(413);
  Object.assign(target, { message, lastEditActorId: me, lastEditTimestamp: Math.floor(Date.now() / 1000) });
  const notice = announce(world, room, me, "message_edited", "{actor} edited a message", target.id);
  effects.acted(room, target, me, "edit", request.body);
  return { status: 200, data: world.shown(room, notice) };
}

function remove(world: TalkWorld, effects: ChatEffects, request: ChatRequest, target: StoredMessage): OcsAnswer {
  const { room, me } = request;
  if (target.messageType !== "comment") return failure(405);
  if (target.actorType !== "users" || target.actorId !== me) return failure(403);
  deleteMessage(world, effects, room, target, me, request.body);
  const notice = room.messages.at(-1) as StoredMessage;
  return { status: 200, data: world.shown(room, notice) };
}

/** Deletes a comment as Talk does: the comment is replaced, and a system message announces it. */
export function deleteMessage(
  world: TalkWorld,
  effects: ChatEffects,
  room: Room,
  target: StoredMessage,
  by: string,
  body: Record<string, unknown> = {},
): void {
  Object.assign(target, {
    message: "Message deleted by you",
    messageType: "comment_deleted",
    messageParameters: [],
    isReplyable: false,
  });
  announce(world, room, by, "message_deleted", "Message deleted by {actor}", target.id);
  effects.acted(room, target, by, "delete", body);
}

/** A system message naming `parentId`, as Talk posts after an edit or a delete so that pollers see the change. */
export function announce(
  world: TalkWorld,
  room: Room,
  by: string,
  systemMessage: string,
  message: string,
  parentId: number,
): StoredMessage {
  const user = world.users.get(by);
  const actor = { type: "user", id: by, name: user?.displayName ?? by };
  return world.append(room, {
    actorType: "users",
    actorId: by,
    actorDisplayName: actor.name,
    message,
    messageParameters: { actor },
    systemMessage,
    messageType: "system",
    isReplyable: false,
    parentId,
  });
}

export type { TalkMessage };
