// The Client-Server API endpoints the fake serves (the subset matrix-js-sdk and the bridge use), over the Homeserver
// state: same paths, bodies, status codes and error shapes as Synapse. Anything else is a 404 M_UNRECOGNIZED.
import type { IncomingMessage, ServerResponse } from "node:http";
import { errors, MatrixHttpError } from "./errors.ts";
import { type Homeserver, randomId, type Session } from "./homeserver.ts";

export interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  params: string[];
  /** Set by `authed` routes. */
  session?: Session;
  token?: string;
}

type Handler = (request: Request, server: Homeserver) => unknown | Promise<unknown>;

interface Route {
  method: string;
  pattern: RegExp;
  authed: boolean;
  handler: Handler;
}

const SEGMENT = "([^/]+)";
const C = "/_matrix/client";

const route = (method: string, path: string, authed: boolean, handler: Handler): Route => ({
  method,
  pattern: new RegExp(`^${path.replaceAll("{}", SEGMENT)}$`),
  authed,
  handler,
});

/** Upper bound on how long a /sync is held (the client asks for `timeout` ms; Synapse caps it too). */
const MAX_SYNC_WAIT_MS = 30_000;

const objectBody = (body: unknown): Record<string, unknown> => {
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw errors.notJson();
  return body as Record<string, unknown>;
};

const stringField = (body: Record<string, unknown>, name: string): string | undefined =>
  typeof body[name] === "string" ? (body[name] as string) : undefined;

function syncPosition(since: string | null): number | undefined {
  if (since === null || since === "") return undefined;
  const match = /^s(\d+)$/.exec(since);
  if (match === null) throw new MatrixHttpError(400, "M_INVALID_PARAM", `Invalid stream token ${since}`);
  return Number(match[1]);
}

/** The timeline limit from an inline JSON filter or a stored filter id. */
function timelineLimit(filterParam: string | null, user: { filters: Record<string, unknown>[] } | undefined) {
  if (filterParam === null || filterParam === "") return undefined;
  let filter: unknown;
  if (filterParam.startsWith("{")) {
    try {
      filter = JSON.parse(filterParam);
    } catch {
      throw new MatrixHttpError(400, "M_INVALID_PARAM", "Invalid filter");
    }
  } else {
    filter = user?.filters[Number(filterParam)];
  }
  const limit = (filter as { room?: { timeline?: { limit?: unknown } } } | undefined)?.room?.timeline?.limit;
  return typeof limit === "number" && limit > 0 ? limit : undefined;
}

function sync(request: Request, server: Homeserver): Promise<unknown> | unknown {
  const session = request.session as Session;
  const token = request.token as string;
  const since = syncPosition(request.query.get("since"));
  const limit = timelineLimit(request.query.get("filter"), server.users.get(session.userId));
  const first = server.sync(session, token, since, limit);
  if (first !== undefined) return first;
  const timeout = Math.min(Math.max(0, Number(request.query.get("timeout") ?? 0) || 0), MAX_SYNC_WAIT_MS);
  if (timeout === 0) return server.emptySync();
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      cancel();
      request.res.off("close", finish);
      resolve(server.sync(session, token, since, limit) ?? server.emptySync());
    };
    const timer = setTimeout(finish, timeout);
    const cancel = server.waitForEvents(session.userId, finish);
    request.res.on("close", finish);
  });
}

function login(request: Request, server: Homeserver): unknown {
  const body = objectBody(request.body);
  if (body.type !== "m.login.password") {
    throw new MatrixHttpError(400, "M_UNKNOWN", "Unknown login type");
  }
  const identifier = body.identifier as { type?: string; user?: string } | undefined;
  const user = identifier?.type === "m.id.user" ? identifier.user : stringField(body, "user");
  const record = user === undefined ? undefined : server.users.get(server.userIdFor(user));
  if (record === undefined || record.password !== body.password) {
    throw errors.forbidden("Invalid username or password");
  }
  const deviceId = stringField(body, "device_id") ?? randomId(6).toUpperCase();
  const accessToken = server.newSession(record.userId, deviceId);
  return { user_id: record.userId, access_token: accessToken, home_server: server.serverName, device_id: deviceId };
}

function joinRoom(request: Request, server: Homeserver): unknown {
  const target = request.params[0] as string;
  const roomId = server.roomIdOf(target);
  if (roomId === undefined) {
    throw target.startsWith("#")
      ? errors.notFound(`Room alias ${target} not found`)
      : errors.notFound(`Can't join remote room because no servers that are in the room have been provided.`);
  }
  server.join(roomId, (request.session as Session).userId);
  return { room_id: roomId };
}

/** A member of the room may send; anyone else gets Synapse's 403. */
function memberRoom(request: Request, server: Homeserver): string {
  const roomId = request.params[0] as string;
  const userId = (request.session as Session).userId;
  if (!server.hasRoom(roomId) || !server.isMember(roomId, userId)) {
    throw errors.forbidden(`User ${userId} not in room ${roomId}`);
  }
  return roomId;
}

/** Transaction ids make sends idempotent per access token, as the spec requires. */
const transactions = new WeakMap<Homeserver, Map<string, string>>();
function idempotent(server: Homeserver, key: string, create: () => string): string {
  let seen = transactions.get(server);
  if (seen === undefined) {
    seen = new Map();
    transactions.set(server, seen);
  }
  const known = seen.get(key);
  if (known !== undefined) return known;
  const eventId = create();
  seen.set(key, eventId);
  return eventId;
}

function sendEvent(request: Request, server: Homeserver): unknown {
  const roomId = memberRoom(request, server);
  const [, type, txnId] = request.params as [string, string, string];
  const content = objectBody(request.body);
  const token = request.token as string;
  const eventId = idempotent(server, `${token}\u0000${txnId}`, () => {
    const sender = (request.session as Session).userId;
    return server.append(roomId, sender, { type, content }, { token, txnId }).event.event_id;
  });
  return { event_id: eventId };
}

function redactEvent(request: Request, server: Homeserver): unknown {
  const roomId = memberRoom(request, server);
  const [, redacts, txnId] = request.params as [string, string, string];
  const target = server.event(redacts);
  if (target === undefined || target.roomId !== roomId) throw errors.notFound("Event not found.");
  const body = objectBody(request.body);
  const token = request.token as string;
  const sender = (request.session as Session).userId;
  if (target.event.sender !== sender && sender !== server.roomCreator(roomId)) {
    throw errors.forbidden("You don't have permission to redact events");
  }
  const eventId = idempotent(server, `${token}\u0000${txnId}`, () => {
    const content: Record<string, unknown> = { redacts };
    if (typeof body.reason === "string") content.reason = body.reason;
    return server.append(roomId, sender, { type: "m.room.redaction", content, redacts }, { token, txnId }).event
      .event_id;
  });
  return { event_id: eventId };
}

function profile(request: Request, server: Homeserver, field?: "displayname" | "avatar_url"): unknown {
  const user = server.users.get(request.params[0] as string);
  if (user === undefined) throw errors.notFound("Profile was not found");
  const whole: Record<string, string> = { displayname: user.displayName };
  if (user.avatarUrl) whole.avatar_url = user.avatarUrl;
  if (field === undefined) return whole;
  if (whole[field] === undefined) throw errors.notFound("Profile was not found");
  return { [field]: whole[field] };
}

const VERSIONS = ["r0.6.1", "v1.1", "v1.2", "v1.3", "v1.4", "v1.5", "v1.6", "v1.7", "v1.8", "v1.9", "v1.10", "v1.11"];

export const ROUTES: Route[] = [
  route("GET", `${C}/versions`, false, () => ({ versions: VERSIONS, unstable_features: {} })),
  route("GET", `${C}/v3/login`, false, () => ({ flows: [{ type: "m.login.password" }] })),
  route("POST", `${C}/v3/login`, false, login),
  route("POST", `${C}/v3/logout`, true, (request, server) => {
    server.sessions.delete(request.token as string);
    return {};
  }),
  route("GET", `${C}/v3/account/whoami`, true, (request) => ({
    user_id: request.session?.userId,
    device_id: request.session?.deviceId,
    is_guest: false,
  })),
  route("GET", `${C}/v3/capabilities`, true, () => ({
    capabilities: {
      "m.change_password": { enabled: true },
      "m.room_versions": { default: "10", available: { "10": "stable" } },
    },
  })),
  route("GET", `${C}/v3/pushrules/?`, true, () => ({
    global: { override: [], content: [], room: [], sender: [], underride: [] },
  })),
  route("POST", `${C}/v3/user/{}/filter`, true, (request, server) => {
    const user = server.users.get(request.session?.userId as string);
    if (request.params[0] !== request.session?.userId || user === undefined) {
      throw errors.forbidden("Cannot create filters for other users");
    }
    user.filters.push(objectBody(request.body));
    return { filter_id: String(user.filters.length - 1) };
  }),
  route("GET", `${C}/v3/user/{}/filter/{}`, true, (request, server) => {
    const filter = server.users.get(request.session?.userId as string)?.filters[Number(request.params[1])];
    if (filter === undefined || request.params[0] !== request.session?.userId) throw errors.notFound("No such filter");
    return filter;
  }),
  route("GET", `${C}/v3/sync`, true, sync),
  route("POST", `${C}/v3/createRoom`, true, (request, server) => {
    const body = objectBody(request.body);
    const alias = stringField(body, "room_alias_name");
    if (alias !== undefined && server.roomIdOf(`#${alias}:${server.serverName}`) !== undefined) {
      throw new MatrixHttpError(400, "M_ROOM_IN_USE", "Room alias already taken");
    }
    const roomId = server.createRoom((request.session as Session).userId, { alias, name: stringField(body, "name") });
    return { room_id: roomId };
  }),
  route("POST", `${C}/v3/join/{}`, true, joinRoom),
  route("POST", `${C}/v3/rooms/{}/join`, true, joinRoom),
  route("PUT", `${C}/v3/rooms/{}/send/{}/{}`, true, sendEvent),
  route("PUT", `${C}/v3/rooms/{}/redact/{}/{}`, true, redactEvent),
  route("POST", `${C}/v3/rooms/{}/receipt/{}/{}`, true, (request, server) => {
    memberRoom(request, server);
    return {};
  }),
  route("GET", `${C}/v3/rooms/{}/event/{}`, true, (request, server) => {
    const roomId = memberRoom(request, server);
    const stored = server.event(request.params[1] as string);
    if (stored === undefined || stored.roomId !== roomId) throw errors.notFound("Event not found.");
    return server.view(stored, request.token, true);
  }),
  route("GET", `${C}/v3/rooms/{}/joined_members`, true, (request, server) => {
    const roomId = memberRoom(request, server);
    const joined: Record<string, unknown> = {};
    for (const userId of server.members(roomId)) {
      joined[userId] = { display_name: server.users.get(userId)?.displayName ?? null, avatar_url: null };
    }
    return { joined };
  }),
  route("GET", `${C}/v3/directory/room/{}`, false, (request, server) => {
    const roomId = server.roomIdOf(request.params[0] as string);
    if (roomId === undefined) throw errors.notFound(`Room alias ${request.params[0]} not found`);
    return { room_id: roomId, servers: [server.serverName] };
  }),
  route("GET", `${C}/v3/profile/{}`, false, (request, server) => profile(request, server)),
  route("GET", `${C}/v3/profile/{}/displayname`, false, (request, server) => profile(request, server, "displayname")),
  route("GET", `${C}/v3/profile/{}/avatar_url`, false, (request, server) => profile(request, server, "avatar_url")),
];

/** The route for a method and path: `undefined` when the path is unknown, "method" when only the method is wrong. */
export function findRoute(method: string, path: string): { route: Route; params: string[] } | "method" | undefined {
  let pathKnown = false;
  for (const candidate of ROUTES) {
    const match = candidate.pattern.exec(path);
    if (match === null) continue;
    pathKnown = true;
    if (candidate.method !== method) continue;
    return { route: candidate, params: match.slice(1).map((segment) => decodeURIComponent(segment)) };
  }
  return pathKnown ? "method" : undefined;
}
