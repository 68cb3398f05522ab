// A fake Matrix homeserver for tests: the Client-Server API subset matrix-js-sdk and the bridge use (matrix/routes.ts),
// on 127.0.0.1 port 0, with Synapse's paths, bodies, status codes, error shapes and rate-limit answers. The test-side
// handle registers users and rooms, acts as human users (say, emote, notice, reply, edit, redact: server-side, as if
// their client had sent it), records every event with a bounded wait, injects 429s and drops connections. Media:
// uploads and both download paths (matrix/media.ts); humans post files as m.image / m.file events.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Teardown } from "../process.ts";
import { Inbox } from "./inbox.ts";
import { errors, MatrixHttpError, sendError, sendJson } from "./matrix/errors.ts";
import { type ClientEvent, Homeserver } from "./matrix/homeserver.ts";
import { MediaRepository } from "./matrix/media.ts";
import { findRoute, type Request } from "./matrix/routes.ts";

export type { ClientEvent } from "./matrix/homeserver.ts";

/** An event as recorded by the fake: the client event plus its room. */
export type MatrixRoomEvent = ClientEvent & { room_id: string };

export interface FakeMatrixOptions {
  /** The server name in user ids, room ids and aliases; default "localhost". */
  serverName?: string;
  /** Where lines about unhandled requests go; default stderr. */
  log?: (line: string) => void;
  /** The media repository's upload limit in bytes (default 50 MiB, Synapse's max_upload_size). */
  maxUploadBytes?: number;
  /** Whether the legacy unauthenticated /_matrix/media/v3/download serves media (default true). */
  legacyMediaDownloads?: boolean;
}

export interface RecordedMatrixRequest {
  method: string;
  path: string;
  status: number;
  userId?: string;
}

export interface RateLimitOptions {
  /** Default 200 ms. Sent as `retry_after_ms` and as `Retry-After` in whole seconds (rounded up), as Synapse does. */
  retryAfterMs?: number;
  /** Which requests count (the path is percent-decoded); default: sending and redacting events. */
  matches?: (method: string, path: string) => boolean;
}

/** A human user of the fake homeserver; every action is an event as their client would have sent it. */
export interface MatrixHuman {
  readonly userId: string;
  readonly password: string;
  /** An access token of this user (for a client library acting as them). */
  readonly accessToken: string;
  join(roomIdOrAlias: string): string;
  send(roomId: string, content: Record<string, unknown>, type?: string): string;
  say(roomId: string, text: string): string;
  /** Uploads a file and posts it: m.image for a picture's name (.png, .jpg...), else m.file. */
  sendFile(roomId: string, file: { name: string; data: Buffer; caption?: string }): string;
  emote(roomId: string, text: string): string;
  notice(roomId: string, text: string): string;
  /** A reply with the quote fallback most clients still send (`> <@user> original` lines, then a blank line). */
  reply(roomId: string, parentEventId: string, text: string): string;
  /** An edit (`m.replace`) with the `* ` fallback body clients send. */
  edit(roomId: string, eventId: string, newText: string): string;
  redact(roomId: string, eventId: string, reason?: string): string;
  setDisplayName(name: string): void;
}

export interface FakeMatrix {
  /** e.g. http://127.0.0.1:41234 (the `baseUrl` / `Server` to give a client). */
  readonly url: string;
  readonly port: number;
  readonly serverName: string;
  readonly homeserver: Homeserver;
  /** Every event appended to any room, in order. */
  readonly events: Inbox<MatrixRoomEvent>;
  readonly requests: RecordedMatrixRequest[];
  /** `METHOD /path` of every request no route handles (answered 404 M_UNRECOGNIZED). */
  readonly unhandled: string[];
  /** An uploaded file's bytes by its mxc:// URI. */
  media(mxc: string): Buffer | undefined;
  registerUser(localpart: string, options?: { password?: string; displayName?: string }): MatrixHuman;
  /** A public room created by `creator`; returns its room id. `alias` is a local part ("main") or a full alias. */
  createRoom(creator: MatrixHuman, options?: { alias?: string; name?: string }): string;
  /** The first event (recorded or still to come) that matches, within timeoutMs (default 10 s). */
  waitForEvent(
    matches: (event: MatrixRoomEvent) => boolean,
    options?: { timeoutMs?: number; from?: number; what?: string },
  ): Promise<MatrixRoomEvent>;
  /** The next `count` requests that match get 429 M_LIMIT_EXCEEDED. */
  rateLimitNext(count: number, options?: RateLimitOptions): void;
  /** A fault: a timeline entry of the room that every client's /sync shows as `raw`, whatever it is. */
  injectEvent(roomId: string, raw: unknown): void;
  /** Closes every open client connection now: held /sync long polls and in-flight requests fail. */
  dropConnections(): void;
  /** While offline, every request's connection is closed without an answer (the server is unreachable). */
  setOffline(offline: boolean): void;
  close(): Promise<void>;
}

const isSendOrRedact = (method: string, path: string) =>
  method === "PUT" && /\/rooms\/[^/]+\/(send|redact)\//.test(path);

const MAX_BODY_BYTES = 1024 * 1024;

export async function startFakeMatrix(teardown: Teardown, options: FakeMatrixOptions = {}): Promise<FakeMatrix> {
  const homeserver = new Homeserver(options.serverName ?? "localhost");
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const events = new Inbox<MatrixRoomEvent>();
  homeserver.onEvent = (stored) => events.push({ ...stored.event, room_id: stored.roomId });
  const requests: RecordedMatrixRequest[] = [];
  const unhandled: string[] = [];
  const sockets = new Set<Socket>();
  const rateLimits: { remaining: number; retryAfterMs: number; matches: (m: string, p: string) => boolean }[] = [];
  let offline = false;
  const media = new MediaRepository(homeserver, {
    maxUploadBytes: options.maxUploadBytes ?? 50 * 1024 * 1024,
    legacyDownloads: options.legacyMediaDownloads ?? true,
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname;
    const record: RecordedMatrixRequest = { method, path, status: 0 };
    requests.push(record);
    res.on("finish", () => {
      record.status = res.statusCode;
    });
    if (offline) {
      req.socket.destroy();
      return;
    }
    try {
      if (media.handles(path)) {
        const answer = await media.handle(req, res, path, url.searchParams, accessToken(req, url.searchParams));
        if (answer !== undefined) sendJson(res, 200, answer);
        return;
      }
      const body = await readBody(req);
      const found = findRoute(method, path);
      if (found === undefined || found === "method") {
        if (found === undefined) {
          unhandled.push(`${method} ${path}`);
          log(`fake matrix: unhandled ${method} ${path}`);
          throw errors.unrecognized();
        }
        throw errors.methodNotAllowed();
      }
      const request: Request = { req, res, method, path, query: url.searchParams, body, params: found.params };
      if (found.route.authed) {
        const token = accessToken(req, url.searchParams);
        if (token === undefined) throw errors.missingToken();
        const session = homeserver.sessions.get(token);
        if (session === undefined) throw errors.unknownToken();
        request.session = session;
        request.token = token;
        record.userId = session.userId;
      }
      const decoded = safeDecode(path);
      const limit = rateLimits.find((entry) => entry.remaining > 0 && entry.matches(method, decoded));
      if (limit !== undefined) {
        limit.remaining--;
        throw errors.limitExceeded(limit.retryAfterMs);
      }
      const answer = await found.route.handler(request, homeserver);
      sendJson(res, 200, answer);
    } catch (error) {
      if (error instanceof MatrixHttpError) sendError(res, error);
      else {
        log(`fake matrix: ${method} ${path} failed: ${String(error)}`);
        sendError(res, new MatrixHttpError(500, "M_UNKNOWN", "Internal server error"));
      }
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("fake matrix: no port");
  const port = address.port;

  const close = async () => {
    offline = true;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  teardown.after(close);

  function human(localpart: string, password: string, displayName: string): MatrixHuman {
    const user = homeserver.registerUser(localpart, password, displayName);
    const userId = user.userId;
    const accessToken = homeserver.newSession(userId);
    const send = (roomId: string, content: Record<string, unknown>, type = "m.room.message") => {
      if (!homeserver.isMember(roomId, userId)) throw new Error(`${userId} is not in ${roomId}`);
      return homeserver.append(roomId, userId, { type, content }).event.event_id;
    };
    return {
      userId,
      password,
      accessToken,
      join(roomIdOrAlias) {
        const roomId = homeserver.roomIdOf(roomIdOrAlias);
        if (roomId === undefined) throw new Error(`no room ${roomIdOrAlias}`);
        homeserver.join(roomId, userId);
        return roomId;
      },
      send,
      say: (roomId, text) => send(roomId, { msgtype: "m.text", body: text }),
      sendFile(roomId, file) {
        const isImage = /\.(png|jpe?g|gif|webp)$/i.test(file.name);
        const ext = file.name.split(".").pop()?.toLowerCase() ?? "";
        const mimetype = isImage ? `image/${ext === "jpg" ? "jpeg" : ext}` : "application/octet-stream";
        const url = media.store(file.data, mimetype, file.name, userId);
        return send(roomId, {
          msgtype: isImage ? "m.image" : "m.file",
          body: file.caption ?? file.name,
          ...(file.caption === undefined ? {} : { filename: file.name }),
          url,
          info: { mimetype, size: file.data.length },
        });
      },
      emote: (roomId, text) => send(roomId, { msgtype: "m.emote", body: text }),
      notice: (roomId, text) => send(roomId, { msgtype: "m.notice", body: text }),
      reply(roomId, parentEventId, text) {
        const parent = homeserver.event(parentEventId);
        const quoted = String(parent?.event.content.body ?? "")
          .split("\n")
          .map((line, index) => (index === 0 ? `> <${parent?.event.sender}> ${line}` : `> ${line}`))
          .join("\n");
        return send(roomId, {
          msgtype: "m.text",
          body: `${quoted}\n\n${text}`,
          "m.relates_to": { "m.in_reply_to": { event_id: parentEventId } },
        });
      },
      edit: (roomId, eventId, newText) =>
        send(roomId, {
          msgtype: "m.text",
          body: `* ${newText}`,
          "m.new_content": { msgtype: "m.text", body: newText },
          "m.relates_to": { rel_type: "m.replace", event_id: eventId },
        }),
      redact(roomId, eventId, reason) {
        const content: Record<string, unknown> = { redacts: eventId };
        if (reason !== undefined) content.reason = reason;
        return homeserver.append(roomId, userId, { type: "m.room.redaction", content, redacts: eventId }).event
          .event_id;
      },
      setDisplayName(name) {
        user.displayName = name;
        for (const roomId of homeserver.joinedRoomIds(userId)) {
          homeserver.append(roomId, userId, {
            type: "m.room.member",
            state_key: userId,
            content: { membership: "join", displayname: name },
          });
        }
      },
    };
  }

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    serverName: homeserver.serverName,
    homeserver,
    events,
    requests,
    unhandled,
    media: (mxc) => media.get(mxc)?.data,
    registerUser: (localpart, opts = {}) =>
      human(localpart, opts.password ?? `${localpart}pw`, opts.displayName ?? localpart),
    createRoom: (creator, opts = {}) => homeserver.createRoom(creator.userId, opts),
    waitForEvent: (matches, opts = {}) =>
      events.waitFor(matches, {
        timeoutMs: opts.timeoutMs ?? 10_000,
        from: opts.from ?? 0,
        what: opts.what ?? "a matrix event",
      }),
    injectEvent(roomId, raw) {
      homeserver.appendRaw(roomId, raw);
    },
    rateLimitNext(count, opts = {}) {
      rateLimits.push({
        remaining: count,
        retryAfterMs: opts.retryAfterMs ?? 200,
        matches: opts.matches ?? isSendOrRedact,
      });
    },
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
    setOffline(value) {
      offline = value;
      if (value) for (const socket of sockets) socket.destroy();
    },
    close,
  };
}

/** `Authorization: Bearer <token>`, or the deprecated `access_token` query parameter. */
function accessToken(req: IncomingMessage, query: URLSearchParams): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer (.+)$/.exec(header);
    return match?.[1];
  }
  return query.get("access_token") ?? undefined;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new MatrixHttpError(413, "M_TOO_LARGE", "Request body too large");
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    throw errors.notJson();
  }
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
