// Test helpers: an in-process bridge on ephemeral ports, and HTTP / stream / websocket clients.
import { request } from "node:http";
import { Writable } from "node:stream";
import { after } from "node:test";
import { type Teardown, waitUntil, withTimeout } from "@switchboard/testkit";
import { pino } from "pino";
import WebSocket from "ws";
import { ApiAccount } from "../src/accounts/api/api-account.ts";
import { PROTOCOLS } from "../src/accounts/registry.ts";
import { Bridge } from "../src/bridge.ts";
import type { ProtocolRegistry } from "../src/config/descriptor.ts";
import { configFromText } from "../src/config/load.ts";
import type { Message } from "../src/message.ts";

export type { Teardown };

/**
 * Teardown for resources made in a suite's `before` hook: call this in the describe body (node:test's `after` called
 * inside a `before` hook would run at the end of that hook).
 */
export function suiteTeardown(): Teardown {
  const cleanups: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  return { after: (fn) => cleanups.push(fn) };
}

export interface RunningBridge {
  bridge: Bridge;
  logs: string[];
  /** Base URL of an api account, e.g. http://127.0.0.1:40123 */
  url(account: string): string;
  stop(): Promise<void>;
}

/** Starts a bridge in this process from TOML text; every BindAddress should use port 0. */
export async function startBridge(
  toml: string,
  teardown: Teardown,
  options: { env?: NodeJS.ProcessEnv; debug?: boolean; protocols?: ProtocolRegistry } = {},
): Promise<RunningBridge> {
  const protocols = options.protocols ?? PROTOCOLS;
  const config = configFromText(toml, "test.toml", { protocols, env: options.env ?? {} });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const logger = pino({ level: options.debug ? "debug" : "info" }, sink);
  const bridge = new Bridge(config, { logger, debug: options.debug ?? false });
  await bridge.start();
  teardown.after(() => bridge.stop());
  return {
    bridge,
    logs,
    url(account: string) {
      const found = bridge.accounts.get(account)?.connection;
      if (!(found instanceof ApiAccount) || !found.address) throw new Error(`no api account ${account}`);
      return `http://127.0.0.1:${found.address.port}`;
    },
    stop: () => bridge.stop(),
  };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request with node:http (no connection reuse), the body as text. */
export function http(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<HttpAnswer> {
  return withTimeout(
    new Promise<HttpAnswer>((resolve, reject) => {
      const req = request(url, { method: options.method ?? "GET", headers: options.headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(options.body);
    }),
    10_000,
    `${options.method ?? "GET"} ${url}`,
  );
}

export function post(base: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return http(`${base}/api/message`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

export async function readMessages(base: string, headers: Record<string, string> = {}): Promise<Message[]> {
  const answer = await http(`${base}/api/messages`, { headers });
  if (answer.status !== 200) throw new Error(`GET /api/messages: ${answer.status} ${answer.body}`);
  return JSON.parse(answer.body) as Message[];
}

/** Collects messages pushed to a client (stream or websocket) and waits for them with bounded timeouts. */
class Inbox {
  readonly items: Message[] = [];
  readonly raw: string[] = [];

  push(text: string): void {
    this.raw.push(text);
    this.items.push(JSON.parse(text) as Message);
  }

  /** The first message (received at index `from` or later, or still to come) that matches; bounded wait. */
  waitFor(matches: (message: Message) => boolean, { from = 0, timeoutMs = 10_000, what = "a message" } = {}) {
    return waitUntil(() => this.items.slice(from).find(matches), { timeoutMs, intervalMs: 5, what });
  }

  /** Waits until at least n items arrived and returns the first n. */
  async take(n: number, timeoutMs = 5_000): Promise<Message[]> {
    await waitUntil(() => this.items.length >= n, { timeoutMs, intervalMs: 5, what: `${n} messages` });
    return this.items.slice(0, n);
  }
}

export interface StreamClient extends Inbox {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  close(): void;
}

/** Opens GET /api/stream and resolves once the first line (the greeting) arrived. */
export function openStream(base: string, headers: Record<string, string> = {}): Promise<StreamClient> {
  return withTimeout(
    new Promise<StreamClient>((resolve, reject) => {
      const inbox = new Inbox() as StreamClient;
      const req = request(`${base}/api/stream`, { headers, agent: false }, (res) => {
        inbox.status = res.statusCode ?? 0;
        inbox.headers = res.headers;
        inbox.close = () => req.destroy();
        if (inbox.status !== 200) {
          res.resume();
          resolve(inbox);
          return;
        }
        let pending = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          pending += chunk;
          let newline = pending.indexOf("\n");
          while (newline >= 0) {
            inbox.push(pending.slice(0, newline));
            pending = pending.slice(newline + 1);
            newline = pending.indexOf("\n");
          }
          if (inbox.items.length > 0) resolve(inbox);
        });
        res.on("error", () => {});
      });
      req.on("error", reject);
      req.end();
    }),
    5_000,
    "opening /api/stream",
  );
}

export interface WsClient extends Inbox {
  socket: WebSocket;
  send(value: unknown): void;
  close(): Promise<void>;
}

/** Connects to /api/websocket and resolves once the greeting frame arrived. */
export function openWebsocket(base: string, headers: Record<string, string> = {}): Promise<WsClient> {
  return withTimeout(
    new Promise<WsClient>((resolve, reject) => {
      const socket = new WebSocket(`${base.replace("http", "ws")}/api/websocket`, { headers });
      const inbox = new Inbox() as WsClient;
      inbox.socket = socket;
      inbox.send = (value) => socket.send(typeof value === "string" ? value : JSON.stringify(value));
      inbox.close = () =>
        new Promise<void>((done) => {
          if (socket.readyState === WebSocket.CLOSED) return done();
          socket.once("close", () => done());
          socket.close();
        });
      socket.on("message", (data) => {
        inbox.push(data.toString());
        if (inbox.items.length === 1) resolve(inbox);
      });
      socket.on("unexpected-response", (req, res) => {
        req.destroy();
        reject(new Error(`websocket upgrade refused: ${res.statusCode}`));
      });
      socket.on("error", reject);
    }),
    5_000,
    "opening /api/websocket",
  );
}

/** The 13 keys, in order, that every Message must have. */
export const KEYS = [
  "text",
  "channel",
  "username",
  "userid",
  "avatar",
  "account",
  "event",
  "protocol",
  "gateway",
  "parent_id",
  "timestamp",
  "id",
  "Extra",
];

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}[+-]\d{2}:\d{2}$/;
