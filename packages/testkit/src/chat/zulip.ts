// A Zulip server simulator for tests: the REST API (zulip/rest.ts) and the real-time events API (zulip/queues.ts:
// register, long-polled GET /events, BAD_EVENT_QUEUE_ID) on one 127.0.0.1 port, so zulip-js runs against it
// unmodified (`realm: url`). Rate limits answer 429 as Zulip's limiter does (Retry-After, X-RateLimit-*, a JSON body
// with `retry-after`). Humans act through a handle; what a bot did through the API is kept in `sent`.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Teardown } from "../process.ts";
import { Inbox } from "./inbox.ts";
import { closeOnce, listenOnLoopback } from "./loopback-server.ts";
import { RateLimits } from "./rate-limits.ts";
import { EventQueues } from "./zulip/queues.ts";
import { type RestAnswer, type RestEffects, restRoutes, zulipError } from "./zulip/rest.ts";
import { type ZulipMessage, type ZulipUser, ZulipWorld } from "./zulip/world.ts";

export type { ZulipMessage, ZulipUser } from "./zulip/world.ts";

export interface ZulipHuman {
  readonly user: ZulipUser;
  /** Posts to a stream's topic; returns the message id. */
  say(stream: string, topic: string, content: string): number;
  edit(id: number, content: string): void;
  delete(id: number): void;
}

/** What a bot did through the API, as the test sees it. */
export interface ZulipBotAction {
  kind: "post" | "edit" | "delete";
  stream: string;
  topic: string;
  message: ZulipMessage;
}

export interface ZulipSimulatorOptions {
  /** How long an idle long poll is held before a heartbeat event answers it (Zulip: about a minute). */
  heartbeatMs?: number;
}

export interface ZulipSimulator {
  /** The organization's URL: the bridge's Server, zulip-js's realm. */
  readonly url: string;
  readonly world: ZulipWorld;
  readonly sent: Inbox<ZulipBotAction>;
  /** "METHOD /path -> status" of every API request, in order. */
  readonly requests: string[];
  readonly unhandled: string[];
  createBot(email: string, fullName: string): ZulipUser;
  createUser(email: string, fullName: string): ZulipHuman;
  /** A public stream with these subscribers; returns its id. */
  createStream(name: string, subscribers: ZulipUser[]): number;
  /** The stream's messages, oldest first. */
  history(stream: string, topic?: string): ZulipMessage[];
  /** The user's registered event queues. */
  queueCount(userId: number): number;
  /** A fault: the server forgets every event queue (as after its restart or a queue's expiry). */
  expireQueues(): void;
  /** A fault: appends this event as is to every queue of the user. */
  injectEvent(userId: number, event: Record<string, unknown>): void;
  /** The next `count` API requests (matching `path` when given) are answered 429, retry after `retryAfter` s. */
  rateLimit(count: number, options?: { retryAfter?: number; path?: RegExp }): void;
  /** While unreachable, every request is cut (an outage); held polls are cut too. */
  setReachable(reachable: boolean): void;
  close(): Promise<void>;
}

export async function startZulipSimulator(
  teardown: Teardown,
  options: ZulipSimulatorOptions = {},
): Promise<ZulipSimulator> {
  const world = new ZulipWorld();
  const queues = new EventQueues(options.heartbeatMs ?? 50_000);
  const sent = new Inbox<ZulipBotAction>();
  const requests: string[] = [];
  const unhandled: string[] = [];
  const limits = new RateLimits();
  let reachable = true;

  const subscribersOf = (message: ZulipMessage) =>
    world.streams.get(message.stream_id)?.subscribers ?? new Set<number>();
  const record = (kind: ZulipBotAction["kind"], message: ZulipMessage) => {
    if (world.users.get(message.sender_id)?.is_bot) {
      sent.push({ kind, stream: message.display_recipient, topic: message.subject, message: structuredClone(message) });
    }
  };
  const effects: RestEffects = {
    posted(message) {
      record("post", message);
      queues.push(subscribersOf(message), { type: "message", message, flags: [] });
    },
    edited(message, editor, origContent) {
      record("edit", message);
      queues.push(subscribersOf(message), {
        type: "update_message",
        user_id: editor.user_id,
        edit_timestamp: message.last_edit_timestamp,
        message_id: message.id,
        message_ids: [message.id],
        flags: [],
        rendering_only: false,
        stream_id: message.stream_id,
        stream_name: message.display_recipient,
        orig_content: origContent,
        content: message.content,
        is_me_message: message.content.startsWith("/me "),
      });
    },
    deleted(message) {
      record("delete", message);
      queues.push(subscribersOf(message), {
        type: "delete_message",
        message_id: message.id,
        message_type: "stream",
        stream_id: message.stream_id,
        topic: message.subject,
      });
    },
  };
  const routes = restRoutes(world, queues, effects);

  function authenticate(req: IncomingMessage): ZulipUser | undefined {
    const match = /^basic\s+(\S+)$/i.exec(req.headers.authorization ?? "");
    if (!match) return undefined;
    const decoded = Buffer.from(match[1] as string, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const user = world.userByEmail(decoded.slice(0, colon));
    return user !== undefined && user.api_key === decoded.slice(colon + 1) ? user : undefined;
  }

  function rateLimited(path: string): RestAnswer | undefined {
    const limit = limits.take(path);
    if (limit === undefined) return undefined;
    const retryAfter = limit.retryAfter ?? 1;
    const answer = zulipError(429, "API usage exceeded rate limit", "RATE_LIMIT_HIT", { "retry-after": retryAfter });
    answer.headers = {
      "Retry-After": String(retryAfter),
      "X-RateLimit-Limit": "200",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": String(Math.ceil(Date.now() / 1000 + retryAfter)),
    };
    return answer;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const params = new URLSearchParams(url.searchParams);
    const type = req.headers["content-type"] ?? "";
    if (chunks.length > 0 && /multipart\/form-data|x-www-form-urlencoded/.test(type)) {
      const form = await new Response(Buffer.concat(chunks), { headers: { "content-type": type } }).formData();
      for (const [key, value] of form) if (typeof value === "string") params.append(key, value);
    }
    let finished = false;
    const reply = (answer: RestAnswer) => {
      if (finished || res.destroyed) return;
      finished = true;
      requests.push(`${req.method} ${url.pathname} -> ${answer.status}`);
      res.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
      res.end(JSON.stringify(answer.body));
    };
    const candidates = routes.filter((r) => r.pattern.test(url.pathname));
    const route = candidates.find((r) => r.method === req.method);
    if (route === undefined) {
      if (candidates.length === 0) unhandled.push(`${req.method} ${url.pathname}`);
      reply(zulipError(candidates.length > 0 ? 405 : 404, "Not found"));
      return;
    }
    const limited = rateLimited(url.pathname);
    if (limited) return reply(limited);
    const me = authenticate(req);
    if (me === undefined) {
      reply({
        ...zulipError(401, "Invalid API key", "INVALID_API_KEY"),
        headers: { "WWW-Authenticate": 'Basic realm="zulip"' },
      });
      return;
    }
    const match = (route.pattern.exec(url.pathname) as RegExpExecArray).slice(1);
    const now = route.handler(params, me, match, reply);
    if (now !== undefined) reply(now);
  }

  const server = createServer((req, res) => {
    if (!reachable) {
      req.socket.destroy();
      return;
    }
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ result: "error", msg: String(error), code: "BAD_REQUEST" }));
    });
  });
  const port = await listenOnLoopback(server);
  const close = closeOnce(server, () => queues.forgetWaiters());
  teardown.after(close);

  const streamNamed = (name: string) => {
    const stream = world.streamByName(name);
    if (!stream) throw new Error(`the simulator has no stream ${name}`);
    return stream;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    world,
    sent,
    requests,
    unhandled,
    createBot: (email, fullName) => world.addUser(email, fullName, true),
    createUser(email, fullName) {
      const user = world.addUser(email, fullName, false);
      const own = (id: number) => {
        const message = world.messages.get(id);
        if (message?.sender_id !== user.user_id) throw new Error(`${email} has no message ${id}`);
        return message;
      };
      return {
        user,
        say(streamName, topic, content) {
          const stream = streamNamed(streamName);
          if (!stream.subscribers.has(user.user_id)) throw new Error(`${email} is not subscribed to ${streamName}`);
          const message = world.newMessage(stream, user, topic, content);
          effects.posted(message);
          return message.id;
        },
        edit(id, content) {
          const message = own(id);
          const orig = message.content;
          message.content = content;
          message.last_edit_timestamp = Math.floor(Date.now() / 1000);
          effects.edited(message, user, orig);
        },
        delete(id) {
          const message = own(id);
          world.messages.delete(id);
          effects.deleted(message);
        },
      };
    },
    createStream: (name, subscribers) =>
      world.addStream(
        name,
        subscribers.map((user) => user.user_id),
      ).stream_id,
    history: (stream, topic) =>
      [...world.messages.values()]
        .filter((m) => m.stream_id === streamNamed(stream).stream_id && (topic === undefined || m.subject === topic))
        .sort((a, b) => a.id - b.id),
    queueCount: (userId) => queues.ofUser(userId).length,
    expireQueues() {
      for (const queueId of queues.queueIds()) {
        queues.remove(queueId, (answer) => answer([])); // a held poll ends; the next one is told the queue is gone
      }
    },
    injectEvent(userId, event) {
      for (const queue of queues.ofUser(userId)) queues.pushRaw(queue, event);
    },
    rateLimit: (count, limitOptions = {}) => limits.add(count, limitOptions),
    setReachable(value) {
      reachable = value;
      if (!value) {
        queues.forgetWaiters();
        server.closeAllConnections();
      }
    },
    close,
  };
}
