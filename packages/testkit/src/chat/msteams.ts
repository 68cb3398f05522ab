// Microsoft Teams as a bridge sees it, simulated for tests on one 127.0.0.1 port: the Microsoft identity platform's
// device-code and token endpoints (msteams/identity.ts: the bridge's LoginURL) and Microsoft Graph's team, channel
// and channel-message endpoints under /v1.0 (msteams/graph-api.ts: the bridge's GraphURL), with Bearer tokens the
// identity platform issued (401 InvalidAuthenticationToken otherwise) and 429 TooManyRequests with Retry-After.
// @microsoft/microsoft-graph-client runs against it unmodified (baseUrl = url). Humans act through a handle; what
// the signed-in bridge user did is kept in `sent`.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { Socket } from "node:net";
import type { Teardown } from "../process.ts";
import { Inbox } from "./inbox.ts";
import { closeOnce, listenOnLoopback } from "./loopback-server.ts";
import { type GraphAnswer, graphApi, graphError } from "./msteams/graph-api.ts";
import { IdentityPlatform } from "./msteams/identity.ts";
import { type ChatMessage, type GraphUser, TeamsWorld } from "./msteams/world.ts";
import { RateLimits } from "./rate-limits.ts";

export type { ChatMessage as TeamsChatMessage, GraphUser } from "./msteams/world.ts";

const OAUTH_PATH = /^\/([^/]+)\/oauth2\/v2\.0\/(devicecode|token)$/;

export interface TeamsHuman {
  readonly user: GraphUser;
  /** Posts in a channel (a reply when `replyTo` names a root); returns the message id. */
  say(channelId: string, html: string, options?: { replyTo?: string }): string;
  edit(channelId: string, id: string, html: string, options?: { replyTo?: string }): void;
  delete(channelId: string, id: string, options?: { replyTo?: string }): void;
}

export interface TeamsBotAction {
  kind: "post" | "reply" | "edit" | "delete";
  channelId: string;
  message: ChatMessage;
}

export interface TeamsSimulatorOptions {
  /** Seconds an access token lives (default 3600). */
  accessTokenSeconds?: number;
}

export interface TeamsSimulator {
  /** The base URL of both the identity platform (LoginURL) and Graph (GraphURL). */
  readonly url: string;
  readonly tenantId: string;
  readonly clientId: string;
  readonly world: TeamsWorld;
  readonly identity: IdentityPlatform;
  readonly teamId: string;
  readonly sent: Inbox<TeamsBotAction>;
  /** "METHOD /path?query -> status" of every request, in order. */
  readonly requests: string[];
  readonly unhandled: string[];
  /** The user the bridge signs in as; what it does is recorded in `sent`. */
  createBridgeUser(displayName: string): GraphUser;
  createUser(displayName: string): TeamsHuman;
  createChannel(displayName: string): string;
  /** The next `count` Graph requests (matching `method` and `path`) are answered 429 with Retry-After. */
  rateLimit(count: number, options?: { retryAfter?: number; method?: string; path?: RegExp }): void;
  /** Stores this as a root message as is (fields of the wrong type, nulls): a fault. */
  injectMessage(channelId: string, raw: Record<string, unknown>): void;
  setReachable(reachable: boolean): void;
  close(): Promise<void>;
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startTeamsSimulator(
  teardown: Teardown,
  options: TeamsSimulatorOptions = {},
): Promise<TeamsSimulator> {
  const world = new TeamsWorld();
  const tenantId = "72f988bf-86f1-41af-91ab-2d7cd011db47";
  const clientId = "0e5f6d2a-1b3c-4d5e-8f90-a1b2c3d4e5f6";
  const identity = new IdentityPlatform({ tenantId, clientId, accessTokenSeconds: options.accessTokenSeconds ?? 3600 });
  const sent = new Inbox<TeamsBotAction>();
  const requests: string[] = [];
  const unhandled: string[] = [];
  const bridgeUsers = new Set<string>();
  const limits = new RateLimits();
  let reachable = true;
  let base = "";

  const acted = (kind: TeamsBotAction["kind"], channelId: string, message: ChatMessage) => {
    if (message.from !== null && bridgeUsers.has(message.from.user.id)) {
      sent.push({ kind, channelId, message: structuredClone(message) });
    }
  };

  async function graph(req: IncomingMessage, url: URL): Promise<GraphAnswer> {
    const path = url.pathname;
    const limit = limits.take(path, req.method);
    if (limit !== undefined) {
      const answer = graphError(429, "TooManyRequests", "Too many requests.");
      return { ...answer, headers: { "Retry-After": String(limit.retryAfter ?? 1) } };
    }
    const token = /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const me = token === undefined ? undefined : identity.userOf(token);
    if (me === undefined) {
      return graphError(
        401,
        "InvalidAuthenticationToken",
        token === undefined ? "Access token is empty." : "Access token has expired or is not yet valid.",
      );
    }
    const text = await readText(req);
    let body: Record<string, unknown> = {};
    if (text !== "") {
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return graphError(400, "BadRequest", "Unable to read JSON request payload.");
      }
    }
    const segments = path.slice("/v1.0/".length).split("/").filter(Boolean).map(decodeURIComponent);
    return graphApi(world, acted, { method: req.method ?? "GET", segments, query: url.searchParams, body, me, base });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const oauth = OAUTH_PATH.exec(url.pathname);
    let status: number;
    let headers: Record<string, string> = {};
    let body: unknown;
    if (oauth !== null && req.method === "POST") {
      const answer = identity.answer(oauth[1] ?? "", oauth[2] ?? "", new URLSearchParams(await readText(req)));
      ({ status, body } = answer);
    } else if (url.pathname.startsWith("/v1.0/")) {
      const answer = await graph(req, url);
      ({ status, body } = answer);
      headers = answer.headers ?? {};
    } else {
      unhandled.push(`${req.method} ${url.pathname}`);
      ({ status, body } = graphError(404, "NotFound", "Resource not found."));
    }
    requests.push(`${req.method} ${url.pathname}${url.search} -> ${status}`);
    if (body === undefined) {
      res.writeHead(status, headers);
      res.end();
      return;
    }
    res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", ...headers });
    res.end(JSON.stringify(body));
  }

  const connections = new Set<Socket>();
  const server = createServer((req, res) => {
    if (!reachable) {
      req.socket.destroy();
      return;
    }
    void handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { "Content-Type": "application/json" });
      res.end(JSON.stringify(graphError(500, "InternalServerError", String(error)).body));
    });
  });
  server.on("connection", (socket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
  });
  const port = await listenOnLoopback(server);
  const url = `http://127.0.0.1:${port}`;
  base = `${url}/v1.0`;
  const close = closeOnce(server);
  teardown.after(close);

  const channelOf = (id: string) => {
    const channel = world.channels.get(id);
    if (channel === undefined) throw new Error(`the simulator has no channel ${id}`);
    return channel;
  };

  return {
    url,
    tenantId,
    clientId,
    world,
    identity,
    teamId: world.team.id,
    sent,
    requests,
    unhandled,
    createBridgeUser(displayName) {
      const user = world.addUser(displayName);
      bridgeUsers.add(user.id);
      return user;
    },
    createUser(displayName) {
      const user = world.addUser(displayName);
      const own = (channelId: string, id: string, replyTo?: string) => {
        const message = world.find(channelOf(channelId), id, replyTo);
        if (message === undefined || message.from?.user.id !== user.id)
          throw new Error(`${displayName} has no message ${id}`);
        return message;
      };
      return {
        user,
        say: (channelId, html, sayOptions = {}) =>
          world.post(channelOf(channelId), user, { contentType: "html", content: html }, sayOptions.replyTo ?? null).id,
        edit: (channelId, id, html, editOptions = {}) =>
          world.edit(own(channelId, id, editOptions.replyTo), { contentType: "html", content: html }),
        delete: (channelId, id, deleteOptions = {}) => world.softDelete(own(channelId, id, deleteOptions.replyTo)),
      };
    },
    createChannel: (displayName) => world.addChannel(displayName).id,
    rateLimit: (count, limitOptions = {}) => limits.add(count, limitOptions),
    injectMessage(channelId, raw) {
      const channel = channelOf(channelId);
      const at = new Date(world.nowMs()).toISOString();
      const message = { id: String(Date.parse(at)), lastModifiedDateTime: at, ...raw } as unknown as ChatMessage;
      channel.roots.push(message);
      channel.replies.set(String(message.id), []);
    },
    setReachable(value) {
      reachable = value;
      if (!value) for (const socket of connections) socket.destroy();
    },
    close,
  };
}
