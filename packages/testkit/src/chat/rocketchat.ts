// A Rocket.Chat server simulator for tests: the REST API (rocketchat/rest.ts) and the DDP realtime API
// (rocketchat/ddp.ts) on one 127.0.0.1 port, as a Rocket.Chat server serves them (`/api/v1/...`, `/websocket`).
// Rate limits answer 429 as Rocket.Chat's limiter does (X-RateLimit-* headers, the reset as epoch milliseconds, an
// error text saying how long to wait). Humans act through a handle; what a bot did through the API is kept in `sent`.
// Integrations (rocketchat/webhooks.ts): incoming webhooks at `/hooks/<id>/<token>` (their posts are in `sent` too)
// and outgoing webhooks calling a URL for each message saved in their room.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { WebSocketServer } from "ws";
import type { Teardown } from "../process.ts";
import { Inbox } from "./inbox.ts";
import { closeOnce, listenOnLoopback } from "./loopback-server.ts";
import { RateLimits } from "./rate-limits.ts";
import { DdpSessions } from "./rocketchat/ddp.ts";
import { failure, type RestAnswer, type RestEffects, restRoutes, unauthorized } from "./rocketchat/rest.ts";
import {
  type IncomingWebhookSetup,
  type OutgoingWebhookCall,
  type OutgoingWebhookSetup,
  RocketChatWebhooks,
} from "./rocketchat/webhooks.ts";
import { type RcMessage, type RcRoom, type RcUser, RocketChatWorld } from "./rocketchat/world.ts";

export type { OutgoingWebhookCall as RocketChatOutgoingCall } from "./rocketchat/webhooks.ts";
export type { RcMessage as RocketChatMessage, RcUser as RocketChatUser } from "./rocketchat/world.ts";

export interface RocketChatHuman {
  readonly user: RcUser;
  /** Posts in a room (by name); `tmid` makes it a reply in that thread. Returns the message id. */
  say(room: string, text: string, options?: { tmid?: string }): string;
  edit(id: string, text: string): void;
  delete(id: string): void;
  /** Joins or leaves a room, with the system message Rocket.Chat posts for it (`uj`, `ul`). */
  join(room: string): void;
  leave(room: string): void;
}

export interface RocketChatBotAction {
  kind: "post" | "edit" | "delete";
  room: string;
  message: RcMessage;
}

export interface RocketChatSimulator {
  readonly url: string;
  readonly world: RocketChatWorld;
  readonly sent: Inbox<RocketChatBotAction>;
  /** "METHOD /path -> status" of every API request, in order. */
  readonly requests: string[];
  readonly unhandled: string[];
  /** A user with the `bot` role (alias and avatar allowed), unless `bot: false`. */
  createBot(username: string, password: string, options?: { bot?: boolean }): RcUser;
  createUser(username: string): RocketChatHuman;
  /** An incoming webhook posting as `postAs` (to `channel` unless a call names another); returns its URL. */
  createIncomingWebhook(setup: IncomingWebhookSetup): string;
  /** An outgoing webhook calling `url` for each message in its room; what each call got back is in the inbox. */
  createOutgoingWebhook(setup: OutgoingWebhookSetup): Inbox<OutgoingWebhookCall>;
  /** A public channel ("c") or private group ("p") with these members; returns its id. */
  createRoom(name: string, members: RcUser[], type?: "c" | "p"): string;
  /** The room's messages, oldest first (deleted ones gone). */
  history(room: string): RcMessage[];
  /** Logged-in DDP sessions of the user subscribed to the room's messages. */
  subscriptions(userId: string, room: string): number;
  /** A fault: sends this DDP frame as is to the user's sessions. */
  injectFrame(userId: string, frame: unknown): void;
  /** The next `count` API requests (matching `path` when given) are answered 429 for `retryAfter` s. */
  rateLimit(count: number, options?: { retryAfter?: number; path?: RegExp }): void;
  /** Cuts every DDP connection; returns how many there were. */
  dropConnections(): number;
  setReachable(reachable: boolean): void;
  close(): Promise<void>;
}

export async function startRocketChatSimulator(teardown: Teardown): Promise<RocketChatSimulator> {
  const world = new RocketChatWorld();
  const ddp = new DdpSessions(world);
  const webhooks = new RocketChatWebhooks(world);
  const sent = new Inbox<RocketChatBotAction>();
  const requests: string[] = [];
  const unhandled: string[] = [];
  const bots = new Set<string>();
  const limits = new RateLimits();
  let reachable = true;

  const roomName = (rid: string) => world.rooms.get(rid)?.name ?? rid;
  const record = (kind: RocketChatBotAction["kind"], message: RcMessage) => {
    if (bots.has(message.u._id)) sent.push({ kind, room: roomName(message.rid), message: structuredClone(message) });
  };
  const systemMessage = (room: RcRoom, user: RcUser, type: "uj" | "ul") =>
    ddp.messageChanged(world.newMessage(room, user, { t: type, msg: user.username }));
  const effects: RestEffects = {
    posted(message) {
      record("post", message);
      ddp.messageChanged(message);
      webhooks.messageSaved(message);
    },
    edited(message) {
      record("edit", message);
      ddp.messageChanged(message);
      webhooks.messageSaved(message);
    },
    deleted(room, message) {
      record("delete", message);
      ddp.messageDeleted(room._id, message._id);
    },
    joined: (room, user) => systemMessage(room, user, "uj"),
  };
  const routes = restRoutes(world, effects);

  function rateLimited(path: string): RestAnswer | undefined {
    const limit = limits.take(path);
    if (limit === undefined) return undefined;
    const retryAfter = limit.retryAfter ?? 1;
    const answer = failure(
      `Error, too many requests. Please slow down. You must wait ${retryAfter} seconds before trying this endpoint again.`,
      "error-too-many-requests",
      429,
    );
    answer.headers = {
      "X-RateLimit-Limit": "10",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(Date.now() + retryAfter * 1000),
    };
    return answer;
  }

  /** Reads a JSON body; undefined when it is not JSON. */
  async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (chunks.length === 0) return {};
    try {
      return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }

  async function answer(req: IncomingMessage, url: URL): Promise<RestAnswer> {
    const path = url.pathname;
    if (path.startsWith("/hooks/") && req.method === "POST") {
      const limited = rateLimited(path);
      if (limited) return limited;
      const input = await jsonBody(req);
      if (input === undefined) return failure("Invalid JSON body", "error-invalid-body");
      return webhooks.incoming(path, input, (_room, message) => {
        // The integration's post, whoever its "Post as" user is.
        sent.push({ kind: "post", room: roomName(message.rid), message: structuredClone(message) });
        ddp.messageChanged(message);
        webhooks.messageSaved(message);
      });
    }
    const name = path.startsWith("/api/v1/") ? path.slice("/api/v1".length) : "";
    const candidates = routes.filter((r) => r.path === name);
    const route = candidates.find((r) => r.method === req.method);
    if (route === undefined) {
      if (candidates.length === 0) unhandled.push(`${req.method} ${path}`);
      return { status: 404, body: { success: false, error: "API endpoint not found" } };
    }
    const limited = rateLimited(path);
    if (limited) return limited;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let input: Record<string, unknown> = Object.fromEntries(url.searchParams);
    if (chunks.length > 0) {
      try {
        input = { ...input, ...(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>) };
      } catch {
        return failure("Invalid JSON body", "error-invalid-body");
      }
    }
    const token = req.headers["x-auth-token"];
    const userId = req.headers["x-user-id"];
    const me =
      typeof token === "string" && world.tokens.get(token) === userId ? world.users.get(String(userId)) : undefined;
    if (route.auth && me === undefined) return unauthorized();
    return route.handler(input, me as RcUser);
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!reachable) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    void answer(req, url)
      .catch((error: unknown) => ({ status: 500, body: { success: false, error: String(error) } }) as RestAnswer)
      .then((result) => {
        requests.push(`${req.method} ${url.pathname} -> ${result.status}`);
        res.writeHead(result.status, { "Content-Type": "application/json", ...result.headers });
        res.end(JSON.stringify(result.body));
      });
  });
  const upgrades = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (!reachable || path !== "/websocket") {
      if (reachable) unhandled.push(`UPGRADE ${path}`);
      socket.destroy();
      return;
    }
    upgrades.handleUpgrade(req, socket, head, (ws) => ddp.accept(ws));
  });
  const port = await listenOnLoopback(server);
  webhooks.siteUrl = `http://127.0.0.1:${port}`;
  const close = closeOnce(server, () => {
    ddp.drop();
    upgrades.close();
  });
  teardown.after(close);

  const roomNamed = (name: string) => {
    const room = world.roomByName(name);
    if (!room) throw new Error(`the simulator has no room ${name}`);
    return room;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    world,
    sent,
    requests,
    unhandled,
    createBot(username, password, options = {}) {
      const user = world.addUser(username, password, options.bot === false ? ["user"] : ["user", "bot"]);
      bots.add(user._id);
      return user;
    },
    createUser(username) {
      const user = world.addUser(username, `${username}-password`, ["user"]);
      const own = (id: string) => {
        const found = world.message(id);
        if (found?.message.u._id !== user._id) throw new Error(`${username} has no message ${id}`);
        return found;
      };
      return {
        user,
        say(name, text, options = {}) {
          const room = roomNamed(name);
          if (!room.members.has(user._id)) throw new Error(`${username} is not in ${name}`);
          const message = world.newMessage(room, user, { msg: text, ...(options.tmid ? { tmid: options.tmid } : {}) });
          effects.posted(message);
          return message._id;
        },
        edit(id, text) {
          const { message } = own(id);
          const at = world.now();
          Object.assign(message, { msg: text, editedAt: at, _updatedAt: at, editedBy: { _id: user._id, username } });
          ddp.messageChanged(message);
          webhooks.messageSaved(message);
        },
        delete(id) {
          const { message, room } = own(id);
          room.messages = room.messages.filter((m) => m !== message);
          room.deleted.push({ _id: id, _deletedAt: world.now() });
          ddp.messageDeleted(room._id, id);
        },
        join(name) {
          const room = roomNamed(name);
          room.members.add(user._id);
          systemMessage(room, user, "uj");
        },
        leave(name) {
          const room = roomNamed(name);
          room.members.delete(user._id);
          systemMessage(room, user, "ul");
        },
      };
    },
    createIncomingWebhook: (setup) => `http://127.0.0.1:${port}${webhooks.addIncoming(setup)}`,
    createOutgoingWebhook: (setup) => webhooks.addOutgoing(setup),
    createRoom: (name, members, type = "c") =>
      world.addRoom(
        name,
        type,
        members.map((u) => u._id),
      )._id,
    history: (name) => [...roomNamed(name).messages],
    subscriptions: (userId, name) => ddp.subscribed(userId, roomNamed(name)._id),
    injectFrame: (userId, frame) => ddp.sendRaw(userId, frame),
    rateLimit: (count, options = {}) => limits.add(count, options),
    dropConnections: () => ddp.drop(),
    setReachable(value) {
      reachable = value;
      if (!value) {
        ddp.drop();
        server.closeAllConnections();
      }
    },
    close,
  };
}
