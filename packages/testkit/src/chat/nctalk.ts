// A Nextcloud server with Talk, simulated for tests: the OCS endpoints a chat client uses (the current user, and
// Talk's chat API in nctalk/chat-api.ts) on one 127.0.0.1 port, with OCS's rules: basic auth with a user's app
// password (401 and OCS status 997 otherwise), the `OCS-APIRequest: true` header (412 "CSRF check failed" without
// it), JSON answers in the {ocs: {meta, data}} envelope for `Accept: application/json` or `format=json`, and 429
// when rate-limited. Humans act through a handle; what the bot user did is kept in `sent`.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { Socket } from "node:net";
import type { Teardown } from "../process.ts";
import { Inbox } from "./inbox.ts";
import { closeOnce, listenOnLoopback } from "./loopback-server.ts";
import { announce, type ChatEffects, chatApi, deleteMessage, type OcsAnswer } from "./nctalk/chat-api.ts";
import { type RichObject, type Room, type StoredMessage, type TalkMessage, TalkWorld } from "./nctalk/world.ts";
import { RateLimits } from "./rate-limits.ts";
import { makeServerDir, removeServerDir, selfSignedCertificate } from "./server-files.ts";

export type { RichObject as TalkRichObject, TalkMessage } from "./nctalk/world.ts";

const CHAT_PATH = /^\/ocs\/v2\.php\/apps\/spreed\/api\/v1\/chat\/([a-z0-9]+)(?:\/(\d+))?$/;
const USER_PATH = "/ocs/v2.php/cloud/user";

export interface TalkHuman {
  readonly id: string;
  readonly displayName: string;
  /** Writes in a room; `replyTo` makes it a reply, `parameters` fills {placeholders} (mentions, files). */
  say(room: string, text: string, options?: { replyTo?: number; parameters?: Record<string, RichObject> }): number;
  edit(room: string, messageId: number, text: string): void;
  delete(room: string, messageId: number): void;
}

/** What a bot user did through the API, as the test sees it. */
export interface TalkBotAction {
  kind: "post" | "edit" | "delete";
  room: string;
  message: TalkMessage;
  /** The body the bot sent (actorDisplayName, replyTo, referenceId...). */
  body: Record<string, unknown>;
}

export interface TalkSimulator {
  /** The server's base URL (the bridge's Server). */
  readonly url: string;
  readonly world: TalkWorld;
  readonly sent: Inbox<TalkBotAction>;
  /** "METHOD /path?query -> status" of every request, in order. */
  readonly requests: string[];
  readonly unhandled: string[];
  /** A user the bridge logs in as, with an app password. */
  createBot(id: string, appPassword: string, displayName?: string): { id: string };
  createUser(id: string, displayName?: string): TalkHuman;
  /** A group conversation with these participants; returns its token. */
  createRoom(name: string, participants: { id: string }[]): string;
  /** A guest (no account) writes in a room under a display name they chose. */
  guestSays(room: string, displayName: string, text: string): number;
  /** The room's chat as the API shows it, oldest first. */
  history(room: string): TalkMessage[];
  /** Appends this as a message as is (a field of the wrong type, a null...): a fault. */
  injectMessage(room: string, raw: Record<string, unknown>): void;
  /** The next `count` requests (matching `method` and `path`) are answered 429, with Retry-After when given. */
  rateLimit(count: number, options?: { retryAfter?: number; method?: string; path?: RegExp }): void;
  /** Long polls waiting now. */
  waitingPolls(): number;
  /** While unreachable, every request is cut (an outage). */
  setReachable(reachable: boolean): void;
  close(): Promise<void>;
}

function ocsBody(answer: OcsAnswer): string {
  const ok = answer.status < 300;
  const meta = {
    status: ok ? "ok" : "failure",
    statuscode: answer.status,
    message: answer.message ?? (ok ? "OK" : ""),
  };
  return JSON.stringify({ ocs: { meta, data: answer.data ?? [] } });
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  if (raw === "") return {};
  if ((req.headers["content-type"] ?? "").includes("json")) {
    try {
      const parsed: unknown = JSON.parse(raw);
      return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

export async function startTalkSimulator(teardown: Teardown, options: { tls?: boolean } = {}): Promise<TalkSimulator> {
  const world = new TalkWorld();
  const sent = new Inbox<TalkBotAction>();
  const requests: string[] = [];
  const unhandled: string[] = [];
  const bots = new Set<string>();
  const limits = new RateLimits();
  const waiters = new Map<Room, Set<() => void>>();
  let reachable = true;

  world.appendListeners.add((room) => {
    const waiting = waiters.get(room);
    waiters.delete(room);
    for (const wake of waiting ?? []) wake();
  });
  const effects: ChatEffects = {
    acted(room, message, by, kind, body) {
      if (bots.has(by)) sent.push({ kind, room: room.token, message: world.shown(room, message), body });
    },
    async waitForMessage(room, timeoutMs, closed) {
      let wake = () => {};
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      const set = waiters.get(room) ?? new Set();
      waiters.set(room, set);
      set.add(wake);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([woken, timedOut, closed]);
      clearTimeout(timer);
      set.delete(wake);
    },
  };

  function authenticated(req: IncomingMessage): string | undefined {
    const basic = /^basic\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (basic === undefined) return undefined;
    const decoded = Buffer.from(basic, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const user = world.users.get(decoded.slice(0, colon));
    return user !== undefined && colon > 0 && user.appPassword === decoded.slice(colon + 1) ? user.id : undefined;
  }

  async function answer(req: IncomingMessage, url: URL, closed: Promise<void>): Promise<OcsAnswer> {
    const path = url.pathname;
    const chat = CHAT_PATH.exec(path);
    if (chat === null && path !== USER_PATH) {
      unhandled.push(`${req.method} ${path}`);
      return { status: 404, data: [], message: "" };
    }
    if (req.headers["ocs-apirequest"] !== "true") return { status: 412, data: [], message: "CSRF check failed" };
    const limit = limits.take(path, req.method);
    if (limit !== undefined) {
      const headers: Record<string, string> =
        limit.retryAfter === undefined ? {} : { "Retry-After": String(limit.retryAfter) };
      return { status: 429, data: [], message: "Reached maximum delay", headers };
    }
    const me = authenticated(req);
    if (me === undefined) return { status: 401, data: [], message: "Current user is not logged in" };
    const body = await readBody(req);
    if (body === undefined) return { status: 400, data: [], message: "Invalid body" };
    if (chat === null) {
      if (req.method !== "GET") return { status: 405, data: [] };
      const user = world.users.get(me);
      return { status: 200, data: { id: me, displayname: user?.displayName ?? me, enabled: true, email: null } };
    }
    const room = world.rooms.get(chat[1] ?? "");
    if (room === undefined) return { status: 404, data: [], message: "" };
    const messageId = chat[2] === undefined ? undefined : Number(chat[2]);
    const method = req.method ?? "GET";
    return chatApi(world, effects, { method, room, messageId, query: url.searchParams, body, me, closed });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const closed = new Promise<void>((resolve) => res.once("close", () => resolve()));
    const json = (req.headers.accept ?? "").includes("application/json") || url.searchParams.get("format") === "json";
    const result = await answer(req, url, closed);
    requests.push(`${req.method} ${url.pathname}${url.search} -> ${result.status}`);
    if (!json && result.status !== 304) unhandled.push(`${req.method} ${url.pathname} without a JSON format`);
    if (result.status === 304) {
      res.writeHead(304, result.headers);
      res.end();
      return;
    }
    res.writeHead(result.status, { "Content-Type": "application/json; charset=utf-8", ...result.headers });
    res.end(ocsBody(result));
  }

  const connections = new Set<Socket>();
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!reachable) {
      req.socket.destroy();
      return;
    }
    void handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { "Content-Type": "application/json" });
      res.end(ocsBody({ status: 500, message: String(error) }));
    });
  };
  let server: ReturnType<typeof createServer>;
  if (options.tls) {
    const certificates = makeServerDir("nctalk-tls");
    teardown.after(() => removeServerDir(certificates));
    selfSignedCertificate(certificates, "localhost");
    const key = readFileSync(`${certificates}/localhost.key`);
    const cert = readFileSync(`${certificates}/localhost.crt`);
    server = createTlsServer({ key, cert }, onRequest);
  } else {
    server = createServer(onRequest);
  }
  server.on("connection", (socket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
  });
  const port = await listenOnLoopback(server);
  const close = closeOnce(server);
  teardown.after(close);

  const roomOf = (token: string) => {
    const room = world.rooms.get(token);
    if (room === undefined) throw new Error(`the simulator has no room ${token}`);
    return room;
  };
  const ownComment = (room: Room, id: number, userId: string): StoredMessage => {
    const found = world.message(room, id);
    if (found === undefined || found.actorId !== userId || found.messageType !== "comment") {
      throw new Error(`${userId} has no comment ${id} in ${room.token}`);
    }
    return found;
  };

  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    world,
    sent,
    requests,
    unhandled,
    createBot(id, appPassword, displayName = id) {
      world.addUser(id, displayName, appPassword);
      bots.add(id);
      return { id };
    },
    createUser(id, displayName = id) {
      world.addUser(id, displayName, `${id}-app-password`);
      return {
        id,
        displayName,
        say(token, text, sayOptions = {}) {
          const room = roomOf(token);
          if (!room.participants.has(id)) throw new Error(`${id} is not in ${token}`);
          const message = world.append(room, {
            actorType: "users",
            actorId: id,
            actorDisplayName: displayName,
            message: text,
            ...(sayOptions.parameters ? { messageParameters: sayOptions.parameters } : {}),
            ...(sayOptions.replyTo === undefined ? {} : { parentId: sayOptions.replyTo }),
          });
          return message.id;
        },
        edit(token, messageId, text) {
          const room = roomOf(token);
          Object.assign(ownComment(room, messageId, id), { message: text, lastEditActorId: id });
          announce(world, room, id, "message_edited", "{actor} edited a message", messageId);
        },
        delete(token, messageId) {
          const room = roomOf(token);
          deleteMessage(world, effects, room, ownComment(room, messageId, id), id);
        },
      };
    },
    createRoom(name, participants) {
      return world.addRoom(
        name,
        participants.map((p) => p.id),
      ).token;
    },
    guestSays(token, displayName, text) {
      const room = roomOf(token);
      const guestId = `guest-${room.guests.size + 1}`;
      room.guests.set(guestId, displayName);
      return world.append(room, { actorType: "guests", actorId: guestId, actorDisplayName: displayName, message: text })
        .id;
    },
    history: (token) => {
      const room = roomOf(token);
      return room.messages.map((message) => world.shown(room, message));
    },
    injectMessage(token, raw) {
      const room = roomOf(token);
      world.append(room, { actorType: "users", actorId: "", raw });
    },
    rateLimit: (count, limitOptions = {}) => limits.add(count, limitOptions),
    waitingPolls: () => [...waiters.values()].reduce((sum, set) => sum + set.size, 0),
    setReachable(value) {
      reachable = value;
      if (!value) for (const socket of connections) socket.destroy();
    },
    close,
  };
}
