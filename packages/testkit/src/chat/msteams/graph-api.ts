// The Microsoft Graph v1.0 routes a Teams bridge uses (learn.microsoft.com, "chatMessage resource type" and its
// methods), answering as Graph does: list channel messages ($top at most 50, $expand=replies, paged by
// @odata.nextLink, threads newest activity first), get one, list replies, send a message or a reply (201), update
// one's own message's body (PATCH, 204), softDelete (204); /me, the team and its channels. Errors are
// {error: {code, message, innerError}}.
import type { ChatMessage, TeamsWorld } from "./world.ts";

export interface GraphAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface GraphRequest {
  method: string;
  /** Path segments after /v1.0, decoded. */
  segments: string[];
  query: URLSearchParams;
  body: Record<string, unknown>;
  me: string;
  /** The URL the request came to, up to /v1.0 (for nextLink). */
  base: string;
}

/** What a user did through the API, for the test to see. */
export type GraphActed = (kind: "post" | "reply" | "edit" | "delete", channelId: string, message: ChatMessage) => void;

export const MAX_TOP = 50;
/** Teams refuses a message body past about 28 KB. */
export const MAX_BODY_BYTES = 28 * 1024;

export function graphError(status: number, code: string, message: string): GraphAnswer {
  const innerError = { date: new Date().toISOString(), "request-id": "00000000-0000-0000-0000-000000000000" };
  return { status, body: { error: { code, message, innerError } } };
}

const notFound = (what: string) => graphError(404, "NotFound", `${what} not found`);

function bodyOf(value: unknown): ChatMessage["body"] | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { content, contentType } = value as { content?: unknown; contentType?: unknown };
  if (typeof content !== "string") return undefined;
  const type = typeof contentType === "string" ? contentType.toLowerCase() : "text";
  return { contentType: type === "html" ? "html" : "text", content };
}

export function graphApi(world: TeamsWorld, acted: GraphActed, request: GraphRequest): GraphAnswer {
  const [first, teamId, second, channelId, third, messageId, fourth, replyId, fifth] = request.segments;
  const { method } = request;
  if (first === "me" && request.segments.length === 1 && method === "GET") {
    return { status: 200, body: world.users.get(request.me) };
  }
  if (first !== "teams" || teamId !== world.team.id) return notFound("Team");
  if (second === undefined)
    return method === "GET" ? { status: 200, body: world.team } : graphError(405, "MethodNotAllowed", "");
  if (second !== "channels") return graphError(400, "BadRequest", `Unsupported segment ${second}`);
  const channel = channelId === undefined ? undefined : world.channels.get(channelId);
  if (channel === undefined) return notFound("Channel");
  if (third === undefined) return { status: 200, body: { id: channel.id, displayName: channel.displayName } };
  if (third !== "messages") return graphError(400, "BadRequest", `Unsupported segment ${third}`);

  if (messageId === undefined) {
    if (method === "GET") return list(world, request, channel.id);
    if (method === "POST") return send(world, acted, request, channel.id, null);
    return graphError(405, "MethodNotAllowed", "");
  }
  const root = world.find(channel, messageId);
  if (root === undefined) return notFound("Message");
  if (fourth === undefined) {
    if (method === "GET") return { status: 200, body: root };
    if (method === "PATCH") return edit(world, acted, request, channel.id, root);
    return graphError(405, "MethodNotAllowed", "");
  }
  if (fourth === "softDelete" && method === "POST") return softDelete(world, acted, request, channel.id, root);
  if (fourth !== "replies") return graphError(400, "BadRequest", `Unsupported segment ${fourth}`);
  if (replyId === undefined) {
    if (method === "GET") return { status: 200, body: { value: channel.replies.get(root.id) ?? [] } };
    if (method === "POST") {
      if (root.deletedDateTime !== null) return notFound("Message");
      return send(world, acted, request, channel.id, root.id);
    }
    return graphError(405, "MethodNotAllowed", "");
  }
  const reply = world.find(channel, replyId, root.id);
  if (reply === undefined) return notFound("Message");
  if (fifth === undefined && method === "GET") return { status: 200, body: reply };
  if (fifth === undefined && method === "PATCH") return edit(world, acted, request, channel.id, reply);
  if (fifth === "softDelete" && method === "POST") return softDelete(world, acted, request, channel.id, reply);
  return graphError(405, "MethodNotAllowed", "");
}

function list(world: TeamsWorld, request: GraphRequest, channelId: string): GraphAnswer {
  const channel = world.channels.get(channelId);
  if (channel === undefined) return notFound("Channel");
  const top = Number(request.query.get("$top") ?? "20");
  if (!Number.isInteger(top) || top < 1 || top > MAX_TOP) {
    return graphError(400, "BadRequest", `Invalid page size requested. Page size must be between 1 and ${MAX_TOP}.`);
  }
  const expand = request.query.get("$expand");
  if (expand !== null && expand !== "replies") return graphError(400, "BadRequest", `Unsupported $expand ${expand}`);
  const skip = Number(request.query.get("$skiptoken") ?? "0");
  const threads = [...channel.roots].sort((a, b) =>
    world.activity(channel, b).localeCompare(world.activity(channel, a)),
  );
  const page = threads
    .slice(skip, skip + top)
    .map((root) => (expand === "replies" ? { ...root, replies: channel.replies.get(root.id) ?? [] } : root));
  const path = `${request.base}/teams/${world.team.id}/channels/${encodeURIComponent(channelId)}/messages`;
  const more = skip + top < threads.length;
  const next = new URLSearchParams({ $top: String(top), $skiptoken: String(skip + top) });
  if (expand !== null) next.set("$expand", expand);
  return {
    status: 200,
    body: {
      "@odata.context": `${request.base}/$metadata#teams('${world.team.id}')/channels('${channelId}')/messages`,
      "@odata.count": page.length,
      ...(more ? { "@odata.nextLink": `${path}?${next}` } : {}),
      value: page,
    },
  };
}

function send(
  world: TeamsWorld,
  acted: GraphActed,
  request: GraphRequest,
  channelId: string,
  replyToId: string | null,
): GraphAnswer {
  const channel = world.channels.get(channelId);
  const user = world.users.get(request.me);
  const body = bodyOf(request.body.body);
  if (channel === undefined || user === undefined) return notFound("Channel");
  if (body === undefined || body.content.trim() === "")
    return graphError(400, "BadRequest", "Message body cannot be empty.");
  if (Buffer.byteLength(body.content) > MAX_BODY_BYTES) {
    return graphError(413, "RequestEntityTooLarge", "Message size exceeds the maximum allowed.");
  }
  const message = world.post(channel, user, body, replyToId);
  acted(replyToId === null ? "post" : "reply", channelId, message);
  return { status: 201, body: message };
}

function edit(
  world: TeamsWorld,
  acted: GraphActed,
  request: GraphRequest,
  channelId: string,
  message: ChatMessage,
): GraphAnswer {
  if (message.from?.user.id !== request.me)
    return graphError(403, "Forbidden", "Only the sender can update a message.");
  if (message.deletedDateTime !== null) return notFound("Message");
  const body = bodyOf(request.body.body);
  if (body === undefined) return graphError(400, "BadRequest", "Only the body of a message can be updated.");
  if (Buffer.byteLength(body.content) > MAX_BODY_BYTES) {
    return graphError(413, "RequestEntityTooLarge", "Message size exceeds the maximum allowed.");
  }
  world.edit(message, body);
  acted("edit", channelId, message);
  return { status: 204 };
}

function softDelete(
  world: TeamsWorld,
  acted: GraphActed,
  request: GraphRequest,
  channelId: string,
  message: ChatMessage,
): GraphAnswer {
  if (message.from?.user.id !== request.me)
    return graphError(403, "Forbidden", "Only the sender can delete a message.");
  if (message.deletedDateTime === null) {
    world.softDelete(message);
    acted("delete", channelId, message);
  }
  return { status: 204 };
}
