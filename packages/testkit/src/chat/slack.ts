// A Slack workspace simulator for tests: the Web API (POST /api/<method>, form-encoded or JSON bodies, Slack's
// answers and error codes, 429 with Retry-After) and Socket Mode (WebSocket at /link, events_api envelopes,
// acknowledgements, retries) on one 127.0.0.1 port, so @slack/web-api and @slack/socket-mode run against it
// unmodified (`slackApiUrl` = apiUrl). Humans act through a handle; what the bot did is kept in `sent`. Files: humans
// share them, apps upload them (files.getUploadURLExternal, POST to the upload_url, files.completeUploadExternal), and
// their bytes are served at url_private to a bot token only (slack/files.ts).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { WebSocketServer } from "ws";
import type { Teardown } from "../process.ts";
import { Inbox } from "./inbox.ts";
import { closeOnce, listenOnLoopback } from "./loopback-server.ts";
import { type FileObject, SlackFiles } from "./slack/files.ts";
import { SocketMode } from "./slack/socket-mode.ts";
import { callMethod, type MethodAnswer, type SlackBotAction, type WebApiContext } from "./slack/web-api.ts";
import { type ChannelState, type MessageRecord, publicMessage, type SlackApp, SlackWorld } from "./slack/world.ts";

export type { FileObject as SlackFileObject } from "./slack/files.ts";
export type { SlackBotAction } from "./slack/web-api.ts";
export type { MessageRecord as SlackMessage, SlackApp, UserObject as SlackUserObject } from "./slack/world.ts";

export interface SlackHuman {
  readonly id: string;
  readonly name: string;
  /** Posts in a channel (name or id); `threadTs` makes it a reply in that thread. Returns the message's ts. */
  say(channel: string, text: string, options?: { threadTs?: string; files?: { name: string; data: Buffer }[] }): string;
  /** A /me message (subtype me_message). */
  me(channel: string, text: string): string;
  edit(channel: string, ts: string, text: string): void;
  delete(channel: string, ts: string): void;
  join(channel: string): void;
  leave(channel: string): void;
}

export interface SlackSimulator {
  /** For WebClient's `slackApiUrl`, with the trailing "/api/" it needs. */
  readonly apiUrl: string;
  readonly port: number;
  readonly world: SlackWorld;
  /** Everything bots posted, edited or deleted, in order. */
  readonly sent: Inbox<SlackBotAction>;
  /** "<method> -> <status> <ok|error>" for every Web API call, in order. */
  readonly calls: string[];
  /** A stored file's bytes by its id (an upload of an app, or a human's). */
  fileData(id: string): Buffer | undefined;
  /** Paths and methods the simulator does not implement. */
  readonly unhandled: string[];
  /** Envelope ids the apps acknowledged. */
  readonly acknowledged: readonly string[];
  createApp(name: string): SlackApp;
  createUser(name: string, options?: { displayName?: string; realName?: string }): SlackHuman;
  /** A channel with these members (humans or apps); returns its id. */
  createChannel(name: string, members: (SlackHuman | SlackApp)[], options?: { private?: boolean }): string;
  /** The channel's messages as a member sees them (deleted ones left out), oldest first. */
  history(channel: string): MessageRecord[];
  openConnections(app: SlackApp): number;
  /** The next `count` calls (of `method`, or any) are answered 429 with Retry-After `retryAfter` seconds. */
  rateLimit(count: number, options?: { retryAfter?: number; method?: string }): void;
  /** A fault: delivers this as the `event` of an events_api envelope to the app, whatever it is (null, a number...). */
  injectEvent(app: SlackApp, event: unknown): void;
  /**
   * A fault: every message event is rewritten by `rewrite` before it is delivered (undefined: as Slack sends them), as
   * a proxy or an API change that loses fields would.
   */
  rewriteEvents(rewrite: ((event: Record<string, unknown>) => unknown) | undefined): void;
  /** Cuts every Socket Mode connection as a network failure would; returns how many there were. */
  dropConnections(): number;
  /** Sends Slack's `disconnect` (refresh_requested) message on every connection. */
  requestRefresh(): void;
  /** While unreachable, every HTTP request and WebSocket upgrade is cut (an outage). */
  setReachable(reachable: boolean): void;
  close(): Promise<void>;
}

async function readParams(request: IncomingMessage, url: URL): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const type = request.headers["content-type"] ?? "";
  if (raw === "") return params;
  if (type.startsWith("application/json")) {
    try {
      const value = JSON.parse(raw) as unknown;
      return value && typeof value === "object" ? { ...params, ...(value as Record<string, unknown>) } : undefined;
    } catch {
      return undefined;
    }
  }
  return { ...params, ...Object.fromEntries(new URLSearchParams(raw)) };
}

export interface SlackSimulatorOptions {
  /** Uploads larger than this are refused by the upload service with HTTP 413 (a workspace's file size limit). */
  maxUploadBytes?: number;
}

export async function startSlackSimulator(
  teardown: Teardown,
  options: SlackSimulatorOptions = {},
): Promise<SlackSimulator> {
  const world = new SlackWorld();
  const files = new SlackFiles(world.teamId, () => `http://127.0.0.1:${port}`);
  const socketMode = new SocketMode(world);
  const sent = new Inbox<SlackBotAction>();
  const calls: string[] = [];
  const unhandled: string[] = [];
  const limits: { remaining: number; retryAfter: number; method?: string | undefined }[] = [];
  let reachable = true;
  let port = 0;
  let rewrite: ((event: Record<string, unknown>) => unknown) | undefined;

  /** A message event for every app in the channel (the author's own app too, as Slack does). */
  const broadcast = (channel: ChannelState, event: Record<string, unknown>) => {
    for (const app of world.apps) {
      if (channel.members.has(app.user.id)) {
        const shown = { ...event, channel: channel.id, channel_type: channel.isPrivate ? "group" : "channel" };
        socketMode.emit(app, rewrite === undefined ? shown : rewrite(structuredClone(shown)));
      }
    }
  };
  const messageEvent = (record: MessageRecord) => ({
    ...publicMessage(record),
    event_ts: record.ts,
    team: world.teamId,
  });
  const changed = (channel: ChannelState, record: MessageRecord, previous: MessageRecord) => {
    const ts = world.nextTs();
    broadcast(channel, {
      type: "message",
      subtype: "message_changed",
      hidden: true,
      ts,
      event_ts: ts,
      message: publicMessage(record),
      previous_message: publicMessage(previous),
    });
  };
  const deleted = (channel: ChannelState, record: MessageRecord) => {
    const ts = world.nextTs();
    broadcast(channel, {
      type: "message",
      subtype: "message_deleted",
      hidden: true,
      ts,
      event_ts: ts,
      deleted_ts: record.ts,
      previous_message: publicMessage(record),
    });
  };

  const context: WebApiContext = {
    world,
    files,
    uploadBase: () => `http://127.0.0.1:${port}`,
    issueTicket: (app) => socketMode.issueTicket(app),
    linkUrl: (ticket) => `ws://127.0.0.1:${port}/link/?ticket=${ticket}`,
    announce(action, _app, previous) {
      sent.push(action);
      const channel = world.channel(action.channel) as ChannelState;
      if (action.kind === "post") broadcast(channel, messageEvent(action.message));
      else if (action.kind === "update" && previous) changed(channel, action.message, previous);
      else if (action.kind === "delete") deleted(channel, action.message);
    },
  };

  const answer = (res: ServerResponse, status: number, body: MethodAnswer, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
    res.end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname.startsWith("/files-pri/")) return serveFile(req, res, url);
    if (req.method === "POST" && url.pathname.startsWith("/upload/v1/")) return receiveUpload(req, res, url);
    const method = /^\/api\/([\w.]+)$/.exec(url.pathname)?.[1];
    if (method === undefined) {
      unhandled.push(`${req.method} ${url.pathname}`);
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("Not Found");
      return;
    }
    const params = await readParams(req, url);
    if (params === undefined) {
      calls.push(`${method} -> 200 invalid_json`);
      return answer(res, 200, { ok: false, error: "invalid_json" });
    }
    const limit = limits[0];
    if (limit && (limit.method === undefined || limit.method === method)) {
      if (--limit.remaining <= 0) limits.shift();
      calls.push(`${method} -> 429 ratelimited`);
      return answer(res, 429, { ok: false, error: "ratelimited" }, { "retry-after": String(limit.retryAfter) });
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const token = bearer ?? (typeof params.token === "string" ? params.token : undefined);
    const result = callMethod({ method, token, params }, context);
    if (result.error === "unknown_method") unhandled.push(`POST /api/${method}`);
    calls.push(`${method} -> 200 ${result.ok ? "ok" : result.error}`);
    answer(res, 200, result);
  }

  /** url_private: the bytes for a bot token of the workspace, else Slack's refusal. */
  function serveFile(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const authorised = bearer !== undefined && world.apps.some((app) => app.botToken === bearer);
    const file = authorised ? files.byPath(url.pathname) : undefined;
    calls.push(`file -> ${file ? 200 : authorised ? 404 : 403}`);
    if (file === undefined) {
      res
        .writeHead(authorised ? 404 : 403, { "content-type": "text/plain" })
        .end(authorised ? "Not Found" : "Forbidden");
      return;
    }
    res.writeHead(200, { "content-type": file.object.mimetype, "content-length": file.data.length });
    res.end(file.data);
  }

  /** The upload service: the raw bytes (or a multipart body's file part, kept whole here) of a reserved file. */
  async function receiveUpload(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const data = Buffer.concat(chunks);
    if (options.maxUploadBytes !== undefined && data.length > options.maxUploadBytes) {
      calls.push("upload -> 413");
      res.writeHead(413, { "content-type": "text/plain" }).end("Request Entity Too Large");
      return;
    }
    const ok = files.receive(url.pathname, data);
    calls.push(`upload -> ${ok ? 200 : 404}`);
    res.writeHead(ok ? 200 : 404, { "content-type": "text/plain" }).end(ok ? `OK - ${data.length}` : "Not Found");
  }

  const connections = new Set<Socket>();
  const server = createServer((req, res) => {
    if (!reachable) {
      req.socket.destroy();
      return;
    }
    void handle(req, res).catch((error: unknown) => answer(res, 500, { ok: false, error: `internal_error: ${error}` }));
  });
  server.on("connection", (socket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
  });
  const sockets = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (!reachable || !path.startsWith("/link")) {
      if (reachable) unhandled.push(`UPGRADE ${path}`);
      socket.destroy();
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => socketMode.accept(ws, req));
  });
  port = await listenOnLoopback(server);
  const close = closeOnce(server, () => {
    socketMode.close();
    sockets.close();
  });
  teardown.after(close);

  const channelOrThrow = (idOrName: string) => {
    const channel = world.channel(idOrName);
    if (!channel) throw new Error(`the simulator has no channel ${idOrName}`);
    return channel;
  };

  const createUser = (name: string, options: { displayName?: string; realName?: string } = {}): SlackHuman => {
    const user = world.addUser(name, options);
    const own = (channel: ChannelState, ts: string) => {
      const record = world.message(channel, ts);
      if (!record || record.user !== user.id) throw new Error(`${name} has no message ${ts} in #${channel.name}`);
      return record;
    };
    const post = (channelName: string, fields: Partial<MessageRecord>) => {
      const channel = channelOrThrow(channelName);
      if (!channel.members.has(user.id)) throw new Error(`${name} is not in #${channel.name}`);
      const record: MessageRecord = { type: "message", ts: world.nextTs(), text: "", user: user.id, ...fields };
      channel.messages.push(record);
      broadcast(channel, messageEvent(record));
      return record.ts;
    };
    const membership = (channelName: string, joining: boolean) => {
      const channel = channelOrThrow(channelName);
      if (joining) channel.members.add(user.id);
      const subtype = joining ? "channel_join" : "channel_leave";
      const verb = joining ? "has joined the channel" : "has left the channel";
      const ts = world.nextTs();
      channel.messages.push({ type: "message", subtype, ts, user: user.id, text: `<@${user.id}> ${verb}` });
      broadcast(channel, { type: "message", subtype, ts, event_ts: ts, user: user.id, text: `<@${user.id}> ${verb}` });
      const kind = joining ? "member_joined_channel" : "member_left_channel";
      broadcast(channel, { type: kind, user: user.id, channel_type: "C", team: world.teamId, event_ts: ts });
      if (!joining) channel.members.delete(user.id);
    };
    return {
      id: user.id,
      name,
      say: (channel, text, options = {}) => {
        const parent = options.threadTs;
        const shared: FileObject[] = (options.files ?? []).map((file) => files.store(file.name, file.data));
        return post(channel, {
          text,
          ...(parent ? { thread_ts: parent, parent_user_id: user.id } : {}),
          ...(shared.length > 0 ? { subtype: "file_share", files: shared, upload: true } : {}),
        });
      },
      me: (channel, text) => post(channel, { text, subtype: "me_message" }),
      edit(channelName, ts, text) {
        const channel = channelOrThrow(channelName);
        const record = own(channel, ts);
        const previous = structuredClone(record);
        record.text = text;
        record.edited = { user: user.id, ts: world.nextTs() };
        changed(channel, record, previous);
      },
      delete(channelName, ts) {
        const channel = channelOrThrow(channelName);
        const record = own(channel, ts);
        record.deleted = true;
        deleted(channel, record);
      },
      join: (channel) => membership(channel, true),
      leave: (channel) => membership(channel, false),
    };
  };

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    port,
    world,
    sent,
    calls,
    unhandled,
    get acknowledged() {
      return socketMode.acknowledged;
    },
    fileData: (id) => files.byId(id)?.data,
    createApp: (name) => world.addApp(name),
    createUser,
    createChannel(name, members, options = {}) {
      const ids = members.map((member) => ("user" in member ? member.user.id : member.id));
      const channel = world.addChannel(name, ids[0] ?? world.newId("U"), options.private ?? false);
      for (const id of ids) channel.members.add(id);
      return channel.id;
    },
    history: (channel) => channelOrThrow(channel).messages.filter((message) => !message.deleted),
    openConnections: (app) => socketMode.openConnections(app),
    rateLimit(count, options = {}) {
      if (count > 0) limits.push({ remaining: count, retryAfter: options.retryAfter ?? 1, method: options.method });
    },
    injectEvent: (app, event) => socketMode.emit(app, event),
    rewriteEvents(value) {
      rewrite = value;
    },
    dropConnections: () => socketMode.drop(),
    requestRefresh: () => socketMode.requestRefresh(),
    setReachable(value) {
      reachable = value;
      if (!value) {
        socketMode.drop();
        for (const socket of connections) socket.destroy();
      }
    },
    close,
  };
}
