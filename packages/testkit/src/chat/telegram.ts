// A faithful local Telegram Bot API for tests: `POST|GET /bot<token>/<method>` on 127.0.0.1 (port 0) with the
// platform's paths, JSON payloads, status codes and error bodies ({ok:false, error_code, description}), token checks,
// a held long poll for getUpdates, 429 answers with `parameters.retry_after` and a `Retry-After` header, and a 404
// in the same shape (logged) for every path or method it does not implement. Point a client at it with its API root
// option (grammy: `client.apiRoot`). The handle lets a test act as human users (post, reply, edit, delete, join,
// forum topics), see what bots did (bounded waits), inject 429s and cut the bots' connections.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Teardown } from "../process.ts";
import { Inbox } from "./inbox.ts";
import { BotApiError, notFound, tooManyRequests, unauthorized } from "./telegram/bot-api-error.ts";
import { type MediaKind, mediaFields, readMultipart } from "./telegram/files.ts";
import type { MessageEntity } from "./telegram/formatting.ts";
import { type BotAction, Described, METHODS, type Params } from "./telegram/methods.ts";
import { entityTooLarge, type UploadLimitOptions, UploadLimits, type UploadRefusal } from "./telegram/upload-limits.ts";
import { type BotState, type ChatState, type ChatType, type User, World } from "./telegram/world.ts";

export type { BotAction, MessageEntity, User as TelegramUserObject };

export interface SimulatedBot {
  readonly token: string;
  readonly user: User;
  readonly username: string;
}

export interface SayOptions {
  /** The message id this one replies to. */
  replyTo?: number;
  /** A forum topic's thread id. */
  topic?: number;
  entities?: MessageEntity[];
}

/** A human on the platform. Each action returns at once; the bots in the chat get their updates. */
export interface TelegramUser {
  readonly user: User;
  /** Posts a message (a channel post in a channel); returns its message id. */
  say(chatId: number, text: string, options?: SayOptions): number;
  /**
   * Posts a file with an optional caption: as `kind` says (a voice note, a sticker...), else a photo for a picture's
   * name (.png, .jpg...) unless `asDocument`, else a document.
   */
  sendFile(
    chatId: number,
    file: { name: string; data: Buffer; caption?: string; asDocument?: boolean; kind?: MediaKind },
  ): number;
  edit(chatId: number, messageId: number, text: string, entities?: MessageEntity[]): void;
  /** Deletes a message; bots are not told (the Bot API has no such update for groups). */
  delete(chatId: number, messageId: number): void;
  join(chatId: number): void;
  leave(chatId: number): void;
  /** Creates a forum topic; returns its thread id. */
  createTopic(chatId: number, name: string): number;
}

export interface VisibleMessage {
  message_id: number;
  text: string;
  from: string;
  edited: boolean;
  replyTo?: number;
  threadId?: number;
}

export interface TelegramSimulator {
  /** What to pass as the client's API root, e.g. http://127.0.0.1:40123 (no trailing slash). */
  readonly apiRoot: string;
  createBot(options: { username: string; firstName?: string }): SimulatedBot;
  createUser(fields: { first_name: string; last_name?: string; username?: string }): TelegramUser;
  /** Creates a chat with these members (no join messages); returns its id. */
  createChat(options: {
    title: string;
    type?: ChatType;
    forum?: boolean;
    username?: string;
    members: (SimulatedBot | TelegramUser)[];
  }): number;
  /** Every message a bot sent, edited or deleted, in order. */
  readonly botActions: Inbox<BotAction>;
  /** Every request answered: bot username ("" when the token was refused), method, HTTP status. */
  readonly calls: { bot: string; method: string; status: number }[];
  /** "<METHOD> <path>" of every request it could not route (token redacted). */
  readonly unhandled: string[];
  /** The chat as its members see it now: messages not deleted, after edits. */
  history(chatId: number): VisibleMessage[];
  /** Bot updates not yet confirmed with getUpdates' offset. */
  pendingUpdates(bot: SimulatedBot): number;
  /**
   * A fault: queues for the bot, under the next update id, whatever `make` returns (null, a message whose text is a
   * number, an update without its message's chat...), sent as is. Confirmed by the offset like any update.
   */
  injectUpdate(bot: SimulatedBot, make: (updateId: number) => unknown): void;
  /**
   * The next `count` uploads (sendPhoto, sendDocument, or `refusal.methods`) are refused: 413 "Request Entity Too
   * Large" unless `refusal` says otherwise. Without it, only what the Bot API refuses is (see TelegramSimulatorOptions).
   */
  refuseUploads(count: number, refusal?: UploadRefusal): void;
  /** The next `count` calls (of `method`, or any) are answered 429 with this retry_after (seconds, default 1). */
  rateLimit(count: number, options?: { retryAfter?: number; method?: string }): void;
  /** Cuts every open connection at once (held long polls fail); returns how many were cut. */
  dropConnections(): number;
  /** While unreachable, every connection is cut as it arrives (an outage); reachable again with true. */
  setReachable(reachable: boolean): void;
  /** BotFather's /revoke: the bot's held poll ends, and every later call with its token is refused 401. */
  revokeToken(bot: SimulatedBot): void;
  close(): Promise<void>;
}

const TOKEN = /^\d+:[A-Za-z0-9_-]+$/;

export interface TelegramSimulatorOptions extends UploadLimitOptions {
  log?: (line: string) => void;
}

/** The body, or undefined when it is larger than `maxBytes` (then read to its end and dropped, as a server does). */
async function readBody(request: IncomingMessage, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= maxBytes) chunks.push(chunk as Buffer);
    else chunks.length = 0;
  }
  return size <= maxBytes ? Buffer.concat(chunks) : undefined;
}

/** The request's parameters: query string, then the body as JSON, urlencoded form or multipart form. */
async function readParams(request: IncomingMessage, url: URL, maxBytes: number): Promise<Params> {
  const params: Params = Object.fromEntries(url.searchParams);
  const body = await readBody(request, maxBytes);
  if (body === undefined) throw entityTooLarge();
  if (body.length === 0) return params;
  const type = (request.headers["content-type"] ?? "").toLowerCase();
  if (type.startsWith("application/json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch {
      throw new BotApiError(400, "Bad Request: can't parse JSON object");
    }
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) Object.assign(params, parsed);
  } else if (type.startsWith("application/x-www-form-urlencoded")) {
    Object.assign(params, Object.fromEntries(new URLSearchParams(body.toString("utf8"))));
  } else if (type.startsWith("multipart/form-data")) {
    Object.assign(params, readMultipart(body, request.headers["content-type"] ?? ""));
  }
  return params;
}

function answer(response: ServerResponse, status: number, body: unknown, retryAfter?: number): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...(retryAfter === undefined ? {} : { "retry-after": String(retryAfter) }),
  });
  response.end(text);
}

export async function startTelegramSimulator(
  teardown: Teardown,
  options: TelegramSimulatorOptions = {},
): Promise<TelegramSimulator> {
  const log = options.log ?? ((line: string) => process.stderr.write(`[telegram simulator] ${line}\n`));
  const world = new World();
  const uploads = new UploadLimits(options);
  const botActions = new Inbox<BotAction>();
  const calls: TelegramSimulator["calls"] = [];
  const unhandled: string[] = [];
  const sockets = new Set<Socket>();
  const limits: { left: number; retryAfter: number; method: string | undefined }[] = [];
  let reachable = true;

  const chatOf = (chatId: number): ChatState => {
    const chat = world.chats.get(chatId);
    if (chat === undefined) throw new Error(`no chat ${chatId} in the simulator`);
    return chat;
  };

  const route = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const download = /^\/file\/bot([^/]*)\/(.+)$/.exec(url.pathname);
    if (download !== null && request.method === "GET") {
      const file = world.bots.has(decodeURIComponent(download[1] as string))
        ? world.files.byPath(decodeURIComponent(download[2] as string))
        : undefined;
      calls.push({ bot: "", method: "file", status: file ? 200 : 404 });
      if (file === undefined) return answer(response, 404, { ok: false, error_code: 404, description: "Not Found" });
      response.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.data.length });
      response.end(file.data);
      return;
    }
    const match = /^\/bot([^/]*)\/(?:test\/)?([^/]*)$/.exec(url.pathname);
    const redacted = url.pathname.replace(/^\/bot[^/]*/, "/bot<token>");
    let botName = "";
    const method = match?.[2] ?? "";
    try {
      if (match === null) {
        unhandled.push(`${request.method} ${redacted}`);
        log(`unhandled path: ${request.method} ${redacted}`);
        throw notFound();
      }
      const token = decodeURIComponent(match[1] as string);
      if (!TOKEN.test(token)) throw unauthorized("invalid token specified");
      const bot = world.bots.get(token);
      if (bot === undefined) throw unauthorized();
      botName = bot.user.username ?? "";
      const handler = METHODS.get(method.toLowerCase());
      if (handler === undefined) {
        unhandled.push(`${request.method} ${redacted}`);
        log(`unhandled method: ${request.method} ${redacted}`);
        throw notFound();
      }
      const limit = limits.find((l) => l.method === undefined || l.method.toLowerCase() === method.toLowerCase());
      if (limit !== undefined) {
        if (--limit.left <= 0) limits.splice(limits.indexOf(limit), 1);
        await readBody(request);
        throw tooManyRequests(limit.retryAfter);
      }
      const params = await readParams(request, url, uploads.uploadMaxBytes);
      const aborted = new AbortController();
      response.on("close", () => aborted.abort());
      // Actions are published once the call is recorded as answered, so a test that saw one sees its call too.
      const actions: BotAction[] = [];
      const result = await handler({
        world,
        bot,
        params,
        signal: aborted.signal,
        record: (action) => actions.push(action),
        uploads,
      });
      calls.push({ bot: botName, method, status: 200 });
      for (const action of actions) botActions.push(action);
      if (response.destroyed) return;
      answer(
        response,
        200,
        result instanceof Described
          ? { ok: true, result: result.result, description: result.description }
          : { ok: true, result },
      );
    } catch (error) {
      const failure =
        error instanceof BotApiError ? error : new BotApiError(500, "Internal Server Error: simulator failure");
      if (!(error instanceof BotApiError)) log(`simulator error: ${error instanceof Error ? error.stack : error}`);
      calls.push({ bot: botName, method, status: failure.code });
      if (response.destroyed) return;
      answer(response, failure.code, failure.body(), failure.retryAfter);
    }
  };

  const server = createServer((request, response) => {
    void route(request, response);
  });
  server.on("connection", (socket) => {
    if (!reachable) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the simulator has no TCP address");

  const botState = (bot: SimulatedBot): BotState => {
    const state = world.bots.get(bot.token);
    if (state === undefined) throw new Error(`no bot ${bot.username}`);
    return state;
  };

  const createUser: TelegramSimulator["createUser"] = (fields) => {
    const user = world.addUser(fields);
    const authored = (chat: ChatState) => (chat.chat.type === "channel" ? { sender_chat: chat.chat } : { from: user });
    return {
      user,
      say(chatId, text, { replyTo, topic, entities } = {}) {
        const chat = chatOf(chatId);
        if (!chat.members.has(user.id)) throw new Error(`${user.first_name} is not in chat ${chatId}`);
        const parent = replyTo === undefined ? undefined : chat.messages.get(replyTo);
        const thread = topic ?? (parent?.is_topic_message ? parent.message_thread_id : undefined);
        return world.post(chat, {
          ...authored(chat),
          text,
          ...(entities?.length ? { entities } : {}),
          ...(thread === undefined ? {} : { message_thread_id: thread, is_topic_message: true }),
          ...(replyTo !== undefined ? { reply_to: replyTo } : thread !== undefined ? { reply_to: thread } : {}),
        }).message_id;
      },
      sendFile(chatId, { name, data, caption, asDocument, kind: asked }) {
        const chat = chatOf(chatId);
        if (!chat.members.has(user.id)) throw new Error(`${user.first_name} is not in chat ${chatId}`);
        const kind = asked ?? (!asDocument && /\.(png|jpe?g|gif|webp)$/i.test(name) ? "photo" : "document");
        const stored = world.files.add(name, data, kind);
        return world.post(chat, {
          ...authored(chat),
          ...(caption ? { caption } : {}),
          media: mediaFields(stored, kind),
          file: { id: stored.file_id, name, size: data.length },
        }).message_id;
      },
      edit(chatId, messageId, text, entities = []) {
        const chat = chatOf(chatId);
        const message = chat.messages.get(messageId);
        if (message === undefined || message.deleted) throw new Error(`no message ${messageId} in ${chatId}`);
        world.edit(chat, message, text, entities);
      },
      delete(chatId, messageId) {
        const chat = chatOf(chatId);
        const message = chat.messages.get(messageId);
        if (message === undefined) throw new Error(`no message ${messageId} in ${chatId}`);
        world.delete(message);
      },
      join(chatId) {
        const chat = chatOf(chatId);
        chat.members.set(user.id, user);
        world.post(chat, { from: user, service: { new_chat_members: [user], new_chat_member: user } });
      },
      leave(chatId) {
        const chat = chatOf(chatId);
        chat.members.delete(user.id);
        world.post(chat, { from: user, service: { left_chat_member: user } });
      },
      createTopic(chatId, name) {
        const chat = chatOf(chatId);
        if (!chat.chat.is_forum) throw new Error(`chat ${chatId} is not a forum`);
        const created = world.post(chat, {
          from: user,
          is_topic_message: true,
          service: { forum_topic_created: { name, icon_color: 7322096 } },
        });
        created.message_thread_id = created.message_id;
        chat.topics.set(created.message_id, name);
        return created.message_id;
      },
    };
  };

  const simulator: TelegramSimulator = {
    apiRoot: `http://127.0.0.1:${address.port}`,
    botActions,
    calls,
    unhandled,
    createBot({ username, firstName }) {
      const state = world.addBot({ username, ...(firstName ? { first_name: firstName } : {}) });
      return { token: state.token, user: state.user, username };
    },
    createUser,
    createChat({ title, type, forum, username, members }) {
      const chat = world.addChat({
        title,
        ...(type ? { type } : {}),
        ...(forum ? { forum } : {}),
        ...(username ? { username } : {}),
      });
      for (const member of members) chat.members.set(member.user.id, member.user);
      return chat.chat.id;
    },
    history(chatId) {
      return [...chatOf(chatId).messages.values()]
        .filter((m) => !m.deleted && m.text !== undefined)
        .map((m) => ({
          message_id: m.message_id,
          text: m.text ?? "",
          from: m.from?.username ?? m.from?.first_name ?? m.sender_chat?.title ?? "",
          edited: m.edit_date !== undefined,
          ...(m.reply_to !== undefined && m.reply_to !== m.message_thread_id ? { replyTo: m.reply_to } : {}),
          ...(m.message_thread_id !== undefined ? { threadId: m.message_thread_id } : {}),
        }));
    },
    pendingUpdates: (bot) => botState(bot).updates.length,
    injectUpdate: (bot, make) => botState(bot).pushRaw(make),
    refuseUploads: (count, refusal) => uploads.refuseNext(count, refusal),
    rateLimit(count, { retryAfter = 1, method } = {}) {
      limits.push({ left: count, retryAfter, method });
    },
    dropConnections() {
      const count = sockets.size;
      for (const socket of sockets) socket.destroy();
      return count;
    },
    setReachable(value) {
      reachable = value;
      if (!value) simulator.dropConnections();
    },
    revokeToken(bot) {
      const state = world.bots.get(bot.token);
      if (state === undefined) return;
      world.bots.delete(bot.token);
      state.poll?.answer([]);
    },
    async close() {
      for (const bot of world.bots.values()) bot.poll?.answer([]);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
  teardown.after(() => simulator.close());
  return simulator;
}
