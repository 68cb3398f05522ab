// The `api` account: an HTTP message API on its own BindAddress (the spec: shared/specs/chat-bridge-api.md).
import type { ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { AccountConfig } from "../../config/types.ts";
import type { Account, AccountContext, Capabilities, Delivery, MessageSink } from "../../core/account.ts";
import { encodeMessage } from "../../message.ts";
import { timestampNow } from "../../timestamp.ts";
import type { PostedBody } from "./body-reader.ts";
import { type PostTargets, parseBody, toMessage } from "./inbound.ts";
import { RingBuffer } from "./ring-buffer.ts";
import { buildApiServer } from "./server.ts";
import { type ServerLimits, serverLimits } from "./server-limits.ts";
import { StreamHub } from "./stream-hub.ts";
import { WebsocketClients } from "./websocket.ts";

export const DEFAULT_BUFFER = 10;
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
const MAX_CLIENT_BACKLOG = 16 * 1024 * 1024;
const DROP_LOG_INTERVAL_MS = 5_000;

export function parseBindAddress(bind: string): { host: string; port: number } {
  const colon = bind.lastIndexOf(":");
  let host = bind.slice(0, colon);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return { host: host === "" ? "0.0.0.0" : host, port: Number(bind.slice(colon + 1)) };
}

export class ApiAccount implements Account {
  readonly id: string;
  readonly protocol = "api";
  readonly name: string;
  readonly capabilities: Capabilities = { userTyping: false };
  readonly ring: RingBuffer<string>;
  readonly bindAddress: string;
  readonly #token: string | undefined;
  readonly #bodyLimit: number;
  readonly #limits: ServerLimits;
  #stopping = false;
  #hub: StreamHub | undefined;
  #websockets: WebsocketClients | undefined;
  #server: FastifyInstance | undefined;
  #sink: MessageSink | undefined;
  #logger: Logger | undefined;
  #targets: PostTargets = new Map();
  #dropsSinceLog = 0;
  #dropTimer: NodeJS.Timeout | undefined;

  constructor(config: AccountConfig) {
    this.id = config.id;
    this.name = config.name;
    const settings = config.settings;
    this.bindAddress = settings.bindaddress ?? "";
    this.#token = settings.token;
    this.#bodyLimit = settings.bodylimit ?? DEFAULT_BODY_LIMIT;
    this.#limits = serverLimits(settings);
    // Buffer = 0 means Matterbridge's default of 10; the capacity then stays fixed for the account's life.
    this.ring = new RingBuffer<string>(settings.buffer && settings.buffer > 0 ? settings.buffer : DEFAULT_BUFFER);
  }

  /** The address actually listened on (useful with port 0). */
  get address(): { host: string; port: number } | undefined {
    const address = this.#server?.server.address();
    return address && typeof address === "object" ? { host: address.address, port: address.port } : undefined;
  }

  async start(context: AccountContext): Promise<void> {
    const logger = context.logger.child({ account: this.id });
    this.#logger = logger;
    this.#sink = context.sink;
    const targets = new Map<string, string>();
    for (const m of context.memberships) {
      if (m.direction !== "out" && !targets.has(m.gateway)) targets.set(m.gateway, m.channel);
    }
    this.#targets = targets;
    this.#hub = new StreamHub({
      maxBufferedBytes: MAX_CLIENT_BACKLOG,
      onSlowClient: (buffered) => logger.warn({ buffered }, "stream client too slow; disconnected"),
    });
    this.#websockets = new WebsocketClients({
      logger,
      debug: context.debug,
      maxBufferedBytes: MAX_CLIENT_BACKLOG,
      post: (bytes) => this.#post({ format: "json", bytes }),
    });
    const hub = this.#hub;
    this.#server = await buildApiServer({
      accountId: this.id,
      token: this.#token,
      bodyLimit: this.#bodyLimit,
      limits: this.#limits,
      logger,
      debug: context.debug,
      drain: () => this.ring.drain(),
      dropped: () => this.ring.dropped,
      post: (body) => this.#post(body),
      addStream: (response: ServerResponse) => hub.add(response),
      websockets: this.#websockets,
      stopping: () => this.#stopping,
    });
    const { host, port } = parseBindAddress(this.bindAddress);
    try {
      await this.#server.listen({ host, port });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const reason =
        code === "EADDRINUSE"
          ? "is already in use"
          : code === "EADDRNOTAVAIL"
            ? "is not an address of this machine"
            : code === "EACCES"
              ? "needs more privileges"
              : `cannot be listened on (${code ?? String(error)})`;
      // One line naming the key that changes it (the server is not listening: nothing to close).
      throw new Error(`[${this.id}] BindAddress ${this.bindAddress} ${reason}: change BindAddress in [${this.id}]`);
    }
    const bound = this.address;
    const shown = bound
      ? `${bound.host.includes(":") ? `[${bound.host}]` : bound.host}:${bound.port}`
      : this.bindAddress;
    logger.info(
      { buffer: this.ring.capacity, auth: this.#token ? "bearer" : "none" },
      `${this.id} listening on http://${shown}`,
    );
  }

  #post(body: PostedBody): { encoded: string; deliveries: number } {
    const sink = this.#sink;
    if (!sink) throw new Error(`${this.id} is not started`);
    const message = toMessage(parseBody(body), this.id, this.#targets, timestampNow());
    // The answer is what the client submitted; the router works on its own copy (it may rewrite text and nick).
    const encoded = encodeMessage(message);
    const { deliveries } = sink.receive(this, { ...message }, message.gateway);
    return { encoded, deliveries };
  }

  send(delivery: Delivery): string {
    const encoded = encodeMessage(delivery.message);
    if (this.ring.push(encoded)) this.#countDrop();
    this.#hub?.broadcast(`${encoded}\n`);
    this.#websockets?.broadcast(encoded);
    // The API has no message ids of its own.
    return "";
  }

  /** Drops are counted always and logged at most every few seconds, so a flood does not flood the log. */
  #countDrop(): void {
    this.#dropsSinceLog++;
    if (this.#dropTimer !== undefined) return;
    this.#flushDropLog();
    this.#dropTimer = setTimeout(() => {
      this.#dropTimer = undefined;
      if (this.#dropsSinceLog > 0) this.#flushDropLog();
    }, DROP_LOG_INTERVAL_MS);
    this.#dropTimer.unref();
  }

  #flushDropLog(): void {
    this.#logger?.warn(
      { dropped: this.#dropsSinceLog, droppedTotal: this.ring.dropped, capacity: this.ring.capacity },
      "message buffer full: oldest messages dropped (read /api/messages more often or raise Buffer)",
    );
    this.#dropsSinceLog = 0;
  }

  /**
   * Ends every stream (a complete chunked response) and closes every websocket with 1001 "going away", refuses new
   * requests, and resolves once in-flight requests have finished and every connection is closed. It does not cut
   * anything itself: the caller decides how long to wait (ShutdownTimeout).
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#dropTimer !== undefined) {
      clearTimeout(this.#dropTimer);
      this.#dropTimer = undefined;
      if (this.#dropsSinceLog > 0) this.#flushDropLog();
    }
    const closing = [this.#hub?.closeAll(), this.#websockets?.closeAll()];
    await Promise.all([...closing, this.#server?.close()]);
    this.#server = undefined;
  }
}
