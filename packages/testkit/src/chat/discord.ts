// A local Discord for tests: the REST API (discord/rest.ts) and the gateway WebSocket (discord/gateway.ts) on one
// 127.0.0.1 port, one bot application in one guild (discord/model.ts). Point discord.js at it with
// `rest: { api: simulator.apiUrl }`; the gateway URL comes from its GET /gateway/bot, as on Discord. The handle acts
// as human users (post, reply, edit, delete), shows what the bot sent, injects 429s and drops connections.
// Every request it does not handle is logged in `unhandled` and answered 404 in Discord's error shape.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { WebSocketServer } from "ws";
import type { Teardown } from "../process.ts";
import { DiscordGateway } from "./discord/gateway.ts";
import {
  type AttachmentObject,
  type ChannelObject,
  ChannelType,
  DiscordWorld,
  type MemberObject,
  type MessageObject,
  type WebhookObject,
} from "./discord/model.ts";
import {
  addWebhook,
  type BotAction,
  NOT_FOUND,
  type RestAnswer,
  type RestRequest,
  restRoutes,
  UNAUTHORIZED,
  type UploadedFile,
} from "./discord/rest.ts";
import { snowflake as snowflakeLike } from "./discord/snowflake.ts";
import { refusal, type UploadLimitOptions, UploadLimits, type UploadRefusalKind } from "./discord/upload-limits.ts";
import { Inbox } from "./inbox.ts";
import { closeOnce, listenOnLoopback } from "./loopback-server.ts";

export { Intent } from "./discord/gateway.ts";
export type { ChannelObject, MemberObject, MessageObject, UserObject, WebhookObject } from "./discord/model.ts";
export type { BotAction, UploadedFile } from "./discord/rest.ts";

export interface DiscordSimulatorOptions extends UploadLimitOptions {
  /** The bot's token (what the developer portal shows); default a fixed test token. */
  token?: string;
  guildName?: string;
  botName?: string;
  /** Text channels to create; default ["general"]. "category/name" creates the category too. */
  channels?: string[];
  /** Whether the application may use privileged intents (members, presences, message content); default true. */
  privilegedIntents?: boolean;
}

export interface RateLimitOptions {
  /** Seconds, as the body's retry_after (the Retry-After header is this rounded up); default 0.2. */
  retryAfter?: number;
  /** A global rate limit (X-RateLimit-Global) rather than a route's; default false. */
  global?: boolean;
  /** Which calls count; default every call except the gateway URL lookups. */
  matches?: (method: string, path: string) => boolean;
}

/** A human in the guild, as the test drives them. */
export interface DiscordHuman {
  readonly member: MemberObject;
  readonly id: string;
  /** Posts in a channel (name, "category/name" or id); `replyTo` makes it a reply to that message. */
  /**
   * Posts in a channel (name, "category/name" or id); `replyTo` makes it a reply to that message. `attachments`
   * are names of files that exist nowhere (their cdn.discordapp.com URLs are not served); `files` are kept on this
   * server's CDN (GET /attachments/<channel>/<id>/<name>, no auth, as Discord's).
   */
  say(
    channel: string,
    content: string,
    options?: {
      replyTo?: string;
      attachments?: string[];
      files?: { name: string; data: Buffer }[];
      /** Attachments whose URL points anywhere (a test's own server), with the size Discord would claim. */
      links?: { name: string; url: string; size: number }[];
    },
  ): MessageObject;
  /** Edits one of their messages (MESSAGE_UPDATE). */
  edit(messageId: string, content: string): MessageObject;
  /** Deletes one of their messages (MESSAGE_DELETE). */
  delete(messageId: string): void;
  /** Leaves the server (GUILD_MEMBER_REMOVE: the guild and the user, as Discord sends it). */
  leave(): void;
}

export interface DiscordSimulator {
  /** Base API URL for discord.js's `rest.api` and the bridge's ApiURL, e.g. http://127.0.0.1:40123/api */
  readonly apiUrl: string;
  readonly port: number;
  readonly token: string;
  readonly guild: { id: string; name: string };
  readonly world: DiscordWorld;
  /** Everything the bot and its webhooks created, edited or deleted, in order. */
  readonly sent: Inbox<BotAction>;
  /** "METHOD /path" of every request the fake does not implement. */
  readonly unhandled: string[];
  /** The bytes of an attachment by its URL (what the bot or a human uploaded), if it is on this server's CDN. */
  attachment(url: string): Buffer | undefined;
  /** "METHOD /path -> status" of every REST request, in order. */
  readonly requests: string[];
  /** Identified gateway sessions with a live socket. */
  readonly gatewaySessions: number;
  channel(nameOrId: string): ChannelObject;
  addChannel(name: string): ChannelObject;
  addUser(username: string, options?: { nick?: string; globalName?: string }): DiscordHuman;
  /** A webhook made in the channel's settings by a person (not the bot's application); its URL on this server. */
  createWebhook(channel: string, name: string): { webhook: WebhookObject; url: string };
  /**
   * The next `count` messages sent with files (bot or webhook) are refused: 413 code 40005 ("too-large", the
   * default), 403 code 50013 ("missing-permission") or 400 Invalid Form Body naming the files ("invalid-form").
   * Without it only what Discord refuses is: a file over `maxUploadBytes`, a body over `maxRequestBytes`.
   */
  refuseUploads(count: number, kind?: UploadRefusalKind): void;
  /** The next `count` matching REST calls get 429 with Discord's rate-limit answer. */
  rateLimitNext(count: number, options?: RateLimitOptions): void;
  /** A fault: a gateway dispatch with this event name and data, whatever it is (MESSAGE_CREATE with `author: null`). */
  injectDispatch(event: string, data: unknown): void;
  /** Cuts every gateway connection as a network failure would; returns how many there were. */
  dropConnections(options?: { invalidateSessions?: boolean }): number;
  /** While false, gateway WebSocket upgrades are refused (503), as during an outage. */
  acceptGateway(accept: boolean): void;
  close(): Promise<void>;
}

const API_PREFIX = /^\/api(?:\/v(?:9|10))?(?=\/)/;

export async function startDiscordSimulator(
  teardown: Teardown,
  options: DiscordSimulatorOptions = {},
): Promise<DiscordSimulator> {
  const token = options.token ?? "MTIzNDU2Nzg5MDEyMzQ1Njc4.fake.simulator-bot-token";
  const world = new DiscordWorld(options.guildName ?? "Switchboard Test Server", options.botName ?? "bridgebot");
  for (const name of options.channels ?? ["general"]) addChannelPath(world, name);
  const sent = new Inbox<BotAction>();
  const unhandled: string[] = [];
  const requests: string[] = [];
  const limits: { remaining: number; options: RateLimitOptions }[] = [];
  const uploads = new UploadLimits(options);
  let accepting = true;
  let port = 0;
  const gatewayUrl = () => `ws://127.0.0.1:${port}`;
  const gateway = new DiscordGateway({
    world,
    token: () => token,
    privilegedIntents: () => options.privilegedIntents ?? true,
    url: gatewayUrl,
    log: (line) => unhandled.push(line),
  });
  /** The CDN: attachment bytes by path (/attachments/<channel>/<id>/<name>). */
  const cdn = new Map<string, Buffer>();
  const storeAttachment = (channelId: string, file: UploadedFile) => {
    const id = snowflakeLike();
    const path = `/attachments/${channelId}/${id}/${encodeURIComponent(file.name)}`;
    cdn.set(path, file.data);
    const url = `http://127.0.0.1:${port}${path}`;
    return { id, filename: file.name, size: file.data.length, url, proxy_url: url, content_type: file.contentType };
  };
  const routes = restRoutes({
    world,
    gateway,
    token: () => token,
    gatewayUrl,
    recordBotAction: (action) => sent.push(structuredClone(action)),
    storeAttachment,
    refuseUpload: (files) => uploads.check(files),
  });

  async function answer(request: RestRequest): Promise<RestAnswer> {
    const candidates = routes.filter((r) => r.pattern.test(request.path));
    const route = candidates.find((r) => r.method === request.method);
    if (route === undefined) {
      if (candidates.length > 0) return { status: 405, body: { message: "405: Method Not Allowed", code: 0 } };
      unhandled.push(`${request.method} ${request.path}`);
      return NOT_FOUND;
    }
    if (route.auth === "bot" && request.headers.authorization !== `Bot ${token}`) return UNAUTHORIZED;
    const limit = limits[0];
    const isLookup = request.path.startsWith("/gateway");
    if (limit && (limit.options.matches ? limit.options.matches(request.method, request.path) : !isLookup)) {
      limit.remaining--;
      if (limit.remaining <= 0) limits.shift();
      return rateLimited(limit.options);
    }
    const params = (route.pattern.exec(request.path) as RegExpExecArray).slice(1);
    return route.handler(request, params);
  }

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: `500: Internal Server Error (${String(error)})`, code: 0 }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const prefix = API_PREFIX.exec(url.pathname);
    // A body over the request limit is read to its end and dropped, then refused (as Discord's edge does).
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size <= uploads.maxRequestBytes) chunks.push(chunk as Buffer);
      else chunks.length = 0;
    }
    let result: RestAnswer;
    const stored = req.method === "GET" ? cdn.get(url.pathname) : undefined;
    if (stored !== undefined) {
      requests.push(`GET ${url.pathname} -> 200`);
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": stored.length });
      res.end(stored);
      return;
    }
    if (prefix === null) {
      unhandled.push(`${req.method} ${url.pathname}`);
      result = NOT_FOUND;
    } else if (size > uploads.maxRequestBytes) {
      result = refusal("too-large");
    } else {
      const { body, files } = await parseBody(Buffer.concat(chunks), req.headers["content-type"]);
      if (body === INVALID) {
        result = { status: 400, body: { message: "400: Bad Request", code: 0 } };
      } else {
        result = await answer({
          method: req.method ?? "GET",
          path: url.pathname.slice(prefix[0].length),
          query: url.searchParams,
          headers: req.headers,
          body,
          files,
        });
      }
    }
    requests.push(`${req.method} ${url.pathname} -> ${result.status}`);
    const headers: Record<string, string> = { ...result.headers };
    if (result.body !== undefined) headers["content-type"] = "application/json";
    res.writeHead(result.status, headers);
    res.end(result.body === undefined ? undefined : JSON.stringify(result.body));
  }

  const sockets = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    if (!accepting) {
      socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => gateway.accept(ws, req));
  });

  port = await listenOnLoopback(server);
  const close = closeOnce(server, () => {
    gateway.close();
    sockets.close();
  });
  teardown.after(close);

  const channelOrThrow = (nameOrId: string) => {
    const channel = world.channel(nameOrId);
    if (!channel) throw new Error(`the simulator has no channel ${nameOrId}`);
    return channel;
  };

  return {
    apiUrl: `http://127.0.0.1:${port}/api`,
    port,
    token,
    guild: { id: world.guildId, name: world.guildName },
    world,
    sent,
    unhandled,
    requests,
    attachment: (url) => cdn.get(new URL(url).pathname),
    get gatewaySessions() {
      return gateway.connectedSessions;
    },
    channel: channelOrThrow,
    addChannel(name) {
      const channel = addChannelPath(world, name);
      gateway.dispatch("CHANNEL_CREATE", channel);
      return channel;
    },
    addUser(username, userOptions = {}) {
      const member = world.addUser(username, userOptions);
      gateway.dispatch("GUILD_MEMBER_ADD", { ...member, guild_id: world.guildId });
      return human(world, gateway, member, channelOrThrow, storeAttachment);
    },
    createWebhook(channel, name) {
      const webhook = addWebhook(world, channelOrThrow(channel), name, null);
      return { webhook, url: `http://127.0.0.1:${port}/api/webhooks/${webhook.id}/${webhook.token}` };
    },
    injectDispatch: (event, data) => gateway.dispatchRaw(event, data),
    refuseUploads: (count, kind = "too-large") => uploads.refuseNext(count, kind),
    rateLimitNext(count, limitOptions = {}) {
      if (count > 0) limits.push({ remaining: count, options: limitOptions });
    },
    dropConnections: (dropOptions) => gateway.drop(dropOptions),
    acceptGateway(accept) {
      accepting = accept;
    },
    close,
  };
}

function human(
  world: DiscordWorld,
  gateway: DiscordGateway,
  member: MemberObject,
  channelOf: (nameOrId: string) => ChannelObject,
  store: (channelId: string, file: UploadedFile) => AttachmentObject,
): DiscordHuman {
  const own = (messageId: string) => {
    const message = world.messages.get(messageId);
    if (!message || message.author.id !== member.user.id)
      throw new Error(`no message ${messageId} by ${member.user.username}`);
    return message;
  };
  return {
    member,
    id: member.user.id,
    say(channelName, content, sayOptions = {}) {
      const channel = channelOf(channelName);
      const attachments = (sayOptions.attachments ?? []).map((filename, index) => {
        const attachmentId = `${Date.now()}${index}`;
        const url = `https://cdn.discordapp.com/attachments/${channel.id}/${attachmentId}/${filename}`;
        return { id: attachmentId, filename, size: 1024, url, proxy_url: url.replace("cdn", "media") };
      });
      for (const file of sayOptions.files ?? []) {
        attachments.push(store(channel.id, { ...file, contentType: "application/octet-stream" }));
      }
      for (const [index, link] of (sayOptions.links ?? []).entries()) {
        const id = `${Date.now()}${index}9`;
        attachments.push({ id, filename: link.name, size: link.size, url: link.url, proxy_url: link.url });
      }
      const message = world.newMessage(channel, member.user, content, {
        attachments,
        ...(sayOptions.replyTo ? { message_reference: { message_id: sayOptions.replyTo } } : {}),
      });
      gateway.dispatch("MESSAGE_CREATE", { ...message, guild_id: world.guildId });
      return message;
    },
    edit(messageId, content) {
      const message = own(messageId);
      message.content = content;
      message.mentions = world.mentionedUsers(content);
      message.edited_timestamp = new Date().toISOString();
      gateway.dispatch("MESSAGE_UPDATE", { ...message, guild_id: world.guildId });
      return message;
    },
    delete(messageId) {
      const message = own(messageId);
      world.messages.delete(messageId);
      gateway.dispatch("MESSAGE_DELETE", { id: message.id, channel_id: message.channel_id, guild_id: world.guildId });
    },
    leave() {
      world.members.delete(member.user.id);
      gateway.dispatch("GUILD_MEMBER_REMOVE", { guild_id: world.guildId, user: member.user });
    },
  };
}

function addChannelPath(world: DiscordWorld, path: string): ChannelObject {
  const [first, second] = path.split("/");
  if (second === undefined) return world.addChannel(path);
  const category =
    [...world.channels.values()].find((c) => c.name === first && c.type === ChannelType.category) ??
    world.addChannel(first as string, { type: ChannelType.category });
  return world.addChannel(second, { parentId: category.id });
}

/** Discord's 429: body {message, retry_after, global}, Retry-After in whole seconds, the bucket's headers. */
function rateLimited(options: RateLimitOptions): RestAnswer {
  const retryAfter = options.retryAfter ?? 0.2;
  const headers: Record<string, string> = {
    "retry-after": String(Math.max(1, Math.ceil(retryAfter))),
    "x-ratelimit-scope": options.global ? "global" : "user",
  };
  if (options.global) {
    headers["x-ratelimit-global"] = "true";
  } else {
    Object.assign(headers, {
      "x-ratelimit-limit": "5",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String((Date.now() / 1000 + retryAfter).toFixed(3)),
      "x-ratelimit-reset-after": retryAfter.toFixed(3),
      "x-ratelimit-bucket": "fake-bucket-messages",
    });
  }
  return {
    status: 429,
    headers,
    body: { message: "You are being rate limited.", retry_after: retryAfter, global: options.global ?? false },
  };
}

const INVALID = Symbol("invalid body");

/** JSON, or multipart/form-data with the JSON in payload_json and the files as files[n] (discord.js's upload). */
async function parseBody(
  raw: Buffer,
  contentType: string | undefined,
): Promise<{ body: unknown; files: UploadedFile[] }> {
  if (raw.length === 0) return { body: undefined, files: [] };
  try {
    if (contentType?.startsWith("multipart/form-data")) {
      const form = await new Response(raw, { headers: { "content-type": contentType } }).formData();
      const json = form.get("payload_json");
      const files: UploadedFile[] = [];
      for (const [field, value] of form.entries()) {
        if (!/^files\[\d+\]$/.test(field) || typeof value === "string") continue;
        files.push({ name: value.name, data: Buffer.from(await value.arrayBuffer()), contentType: value.type });
      }
      return { body: typeof json === "string" ? JSON.parse(json) : {}, files };
    }
    return { body: JSON.parse(raw.toString("utf8")) as unknown, files: [] };
  } catch {
    return { body: INVALID, files: [] };
  }
}
