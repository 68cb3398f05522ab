// A Mattermost server simulator for tests: API v4 (the routes in mattermost/rest.ts, Mattermost's error shape, 429
// with Retry-After and X-Ratelimit-* as its rate limiter answers) and the WebSocket API on one 127.0.0.1 port, so
// @mattermost/client's Client4 and WebSocketClient run against it unmodified (`setUrl(url)`,
// `initialize(url + "/api/v4/websocket", token)`). Humans act through a handle; what the bot did is kept in `sent`.
// Files: uploaded (POST /api/v4/files, multipart), attached to posts by file_ids, served at /api/v4/files/{id}.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { Socket } from "node:net";
import { WebSocketServer } from "ws";
import type { Teardown } from "../process.ts";
import { Inbox } from "./inbox.ts";
import { closeOnce, listenOnLoopback } from "./loopback-server.ts";
import { apiError, type RestAnswer, type RestEffects, restRoutes } from "./mattermost/rest.ts";
import { MattermostSockets } from "./mattermost/websocket.ts";
import { type ChannelState, MattermostWorld, type PostObject, type UserObject } from "./mattermost/world.ts";
import { makeServerDir, removeServerDir, selfSignedCertificate } from "./server-files.ts";
import { readMultipart } from "./telegram/files.ts";

export type { PostObject as MattermostPost, UserObject as MattermostUserObject } from "./mattermost/world.ts";

export interface MattermostHuman {
  readonly id: string;
  readonly username: string;
  /** Posts in a channel (by name); `rootId` makes it a reply in that thread. Returns the post id. */
  say(channel: string, text: string, options?: { rootId?: string; files?: { name: string; data: Buffer }[] }): string;
  edit(postId: string, text: string): void;
  delete(postId: string): void;
  join(channel: string): void;
}

/** What a bot user did through the API, as the test sees it. */
export interface MattermostBotAction {
  kind: "post" | "edit" | "delete";
  /** The channel's name. */
  channel: string;
  post: PostObject;
}

export interface MattermostSimulatorOptions {
  teamName?: string;
  /** Serve https and wss with a self-signed certificate for "localhost" (made with openssl). */
  tls?: boolean;
  /** The server's MaxFileSize in bytes (Mattermost's default: 100 MB); larger uploads are refused with 413. */
  maxFileBytes?: number;
}

export interface MattermostSimulator {
  /** The server URL (Client4.setUrl; the bridge's Server, with NoTLS unless the simulator has tls). */
  readonly url: string;
  /** host:port, as Matterbridge's Server key takes it. */
  readonly hostPort: string;
  readonly world: MattermostWorld;
  readonly teamName: string;
  readonly sent: Inbox<MattermostBotAction>;
  /** "METHOD /path -> status" of every API request, in order. */
  readonly requests: string[];
  readonly unhandled: string[];
  /** A file's bytes by its id. */
  fileData(id: string): Buffer | undefined;
  /** A user the bridge logs in as (Login/Password); `token` is a personal access token for it. */
  createBot(username: string, password: string): { user: UserObject; token: string };
  createUser(
    username: string,
    fields?: { nickname?: string; first_name?: string; last_name?: string },
  ): MattermostHuman;
  /** An open channel of the team with these members; returns its id. */
  createChannel(name: string, members: ({ id: string } | { user: UserObject })[]): string;
  /** The channel's posts that are not deleted, oldest first. */
  history(channel: string): PostObject[];
  webSocketConnections(userId: string): number;
  /** A fault: sends this WebSocket frame as is (an event with `data: null`, a post that is not JSON...) to a user. */
  injectEvent(userId: string, frame: unknown): void;
  /**
   * A fault: every event frame is rewritten by `rewrite` before it is sent (undefined: as the server sends them), as
   * a server or proxy that loses fields would.
   */
  rewriteEvents(rewrite: ((frame: Record<string, unknown>) => unknown) | undefined): void;
  /** The next `count` API requests (matching `path` when given) are answered 429, retry after `retryAfter` s. */
  rateLimit(count: number, options?: { retryAfter?: number; path?: RegExp }): void;
  /** Cuts every WebSocket connection as a network failure would; returns how many there were. */
  dropConnections(): number;
  /** While unreachable, every request and upgrade is cut (an outage). */
  setReachable(reachable: boolean): void;
  close(): Promise<void>;
}

const bearer = (req: IncomingMessage) => /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];

export async function startMattermostSimulator(
  teardown: Teardown,
  options: MattermostSimulatorOptions = {},
): Promise<MattermostSimulator> {
  const world = new MattermostWorld(options.teamName ?? "switchboard");
  const sockets = new MattermostSockets(world);
  const sent = new Inbox<MattermostBotAction>();
  const requests: string[] = [];
  const unhandled: string[] = [];
  const bots = new Set<string>();
  const limits: { remaining: number; retryAfter: number; path?: RegExp | undefined }[] = [];
  let reachable = true;

  const channelOf = (post: PostObject) => world.channels.get(post.channel_id) as ChannelState;
  const postEvent = (event: string, post: PostObject, extra: Record<string, unknown> = {}) => {
    const channel = channelOf(post);
    const sender = world.users.get(post.user_id);
    sockets.broadcast(
      channel.members,
      event,
      {
        channel_display_name: channel.display_name,
        channel_name: channel.name,
        channel_type: channel.type,
        post: JSON.stringify(post),
        sender_name: `@${sender?.username ?? ""}`,
        team_id: world.team.id,
        set_online: true,
        ...extra,
      },
      channel.id,
    );
  };
  const record = (kind: MattermostBotAction["kind"], post: PostObject) => {
    if (bots.has(post.user_id)) sent.push({ kind, channel: channelOf(post).name, post: structuredClone(post) });
  };
  const effects: RestEffects = {
    posted(post) {
      record("post", post);
      postEvent("posted", post);
    },
    edited(post) {
      record("edit", post);
      postEvent("post_edited", post);
    },
    deleted(post, by) {
      record("delete", post);
      postEvent("post_deleted", post, { delete_by: by });
    },
    joined(channelId, userId) {
      const channel = world.channels.get(channelId) as ChannelState;
      const user = world.users.get(userId);
      const post = world.newPost(channel, userId, {
        type: "system_join_channel",
        message: `${user?.username} joined the channel.`,
        props: { username: user?.username },
      });
      postEvent("posted", post);
      sockets.broadcast(channel.members, "user_added", { user_id: userId, team_id: world.team.id }, channel.id);
    },
  };
  const routes = restRoutes(world, effects, { maxFileBytes: options.maxFileBytes ?? 100 * 1024 * 1024 });

  function answer(req: IncomingMessage, path: string, query: URLSearchParams, body: unknown): RestAnswer {
    const candidates = routes.filter((r) => r.pattern.test(path));
    const route = candidates.find((r) => r.method === req.method);
    if (route === undefined) {
      if (candidates.length > 0)
        return apiError(405, "api.context.method_not_allowed.app_error", "Method not allowed.");
      unhandled.push(`${req.method} ${path}`);
      return apiError(404, "api.context.404.app_error", "Sorry, we could not find the page.");
    }
    const limit = limits[0];
    if (limit && (limit.path === undefined || limit.path.test(path))) {
      if (--limit.remaining <= 0) limits.shift();
      const seconds = String(limit.retryAfter);
      // Mattermost's rate limiter answers in plain text, with these headers.
      return {
        status: 429,
        body: "limit exceeded\n",
        headers: {
          "Retry-After": seconds,
          "X-Ratelimit-Limit": "10",
          "X-Ratelimit-Remaining": "0",
          "X-Ratelimit-Reset": seconds,
        },
      };
    }
    const token = bearer(req) ?? /MMAUTHTOKEN=([^;]+)/.exec(req.headers.cookie ?? "")?.[1];
    const me = token === undefined ? undefined : world.sessions.get(token);
    if (route.auth && me === undefined) {
      return apiError(401, "api.context.session_expired.app_error", "Invalid or expired session, please login again.");
    }
    if (body === undefined)
      return apiError(400, "api.context.invalid_body_param.app_error", "Invalid or missing body.");
    const params = (route.pattern.exec(path) as RegExpExecArray).slice(1);
    return route.handler(
      { method: req.method ?? "GET", path, query, token, body: body as Record<string, unknown> },
      params,
      me ?? "",
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const raw = bytes.toString("utf8");
    const type = req.headers["content-type"] ?? "";
    let body: unknown = {};
    if (type.toLowerCase().startsWith("multipart/form-data")) {
      body = readMultipart(bytes, type);
    } else if (raw !== "") {
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
    }
    const result = answer(req, url.pathname, url.searchParams, body);
    requests.push(`${req.method} ${url.pathname} -> ${result.status}`);
    if (Buffer.isBuffer(result.body)) {
      res.writeHead(result.status, { "Content-Length": result.body.length, ...result.headers });
      res.end(result.body);
      return;
    }
    const isText = typeof result.body === "string";
    res.writeHead(result.status, {
      "Content-Type": isText ? "text/plain; charset=utf-8" : "application/json",
      ...result.headers,
    });
    res.end(isText ? result.body : JSON.stringify(result.body));
  }

  const connections = new Set<Socket>();
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!reachable) {
      req.socket.destroy();
      return;
    }
    void handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ id: "simulator.error", message: String(error), status_code: 500 }));
    });
  };
  let server: ReturnType<typeof createServer>;
  if (options.tls) {
    const certificates = makeServerDir("mattermost-tls");
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
  const upgrades = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (!reachable || path !== "/api/v4/websocket") {
      if (reachable) unhandled.push(`UPGRADE ${path}`);
      socket.destroy();
      return;
    }
    upgrades.handleUpgrade(req, socket, head, (ws) => sockets.accept(ws, bearer(req)));
  });
  const port = await listenOnLoopback(server);
  const close = closeOnce(server, () => {
    sockets.drop();
    upgrades.close();
  });
  teardown.after(close);

  const channelNamed = (name: string) => {
    const channel = world.channelByName(name) ?? world.channels.get(name);
    if (!channel) throw new Error(`the simulator has no channel ${name}`);
    return channel;
  };

  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    world,
    teamName: world.team.name,
    sent,
    requests,
    unhandled,
    fileData: (id) => world.files.get(id)?.data,
    createBot(username, password) {
      const user = world.addUser(username, password, { is_bot: false });
      bots.add(user.id);
      return { user, token: world.newSession(user.id) };
    },
    createUser(username, fields = {}) {
      const user = world.addUser(username, `${username}-password`, fields);
      const own = (postId: string) => {
        const found = world.post(postId);
        if (!found || found.post.user_id !== user.id) throw new Error(`${username} has no post ${postId}`);
        return found.post;
      };
      return {
        id: user.id,
        username,
        say(channelName, text, sayOptions = {}) {
          const channel = channelNamed(channelName);
          if (!channel.members.has(user.id)) throw new Error(`${username} is not in ${channel.name}`);
          const post = world.newPost(channel, user.id, { message: text, root_id: sayOptions.rootId ?? "" });
          const fileIds = (sayOptions.files ?? []).map((file) => {
            const id = world.newId();
            world.files.add(id, { ...file, userId: user.id, channelId: channel.id, at: world.now() });
            return id;
          });
          world.attachFiles(post, fileIds);
          effects.posted(post);
          return post.id;
        },
        edit(postId, text) {
          const at = world.now();
          effects.edited(Object.assign(own(postId), { message: text, edit_at: at, update_at: at }));
        },
        delete(postId) {
          const at = world.now();
          effects.deleted(Object.assign(own(postId), { delete_at: at, update_at: at }), user.id);
        },
        join(channelName) {
          const channel = channelNamed(channelName);
          if (channel.members.has(user.id)) return;
          channel.members.add(user.id);
          effects.joined(channel.id, user.id);
        },
      };
    },
    createChannel(name, members) {
      const ids = members.map((member) => ("user" in member ? member.user.id : member.id));
      return world.addChannel(name, ids).id;
    },
    history: (channel) => channelNamed(channel).posts.filter((post) => post.delete_at === 0),
    webSocketConnections: (userId) => sockets.connections(userId),
    injectEvent: (userId, frame) => sockets.sendRaw(userId, frame),
    rewriteEvents(rewrite) {
      sockets.rewrite = rewrite;
    },
    rateLimit(count, limitOptions = {}) {
      if (count > 0)
        limits.push({ remaining: count, retryAfter: limitOptions.retryAfter ?? 1, path: limitOptions.path });
    },
    dropConnections: () => sockets.drop(),
    setReachable(value) {
      reachable = value;
      if (!value) {
        sockets.drop();
        for (const socket of connections) socket.destroy();
      }
    },
    close,
  };
}
