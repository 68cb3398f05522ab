// The `api` account's connection: an HTTP message API on its own BindAddress (shared/specs/chat-bridge-api.md).
// Connecting is listening; a listen error is an AccountFailure (no retry can free a port someone else holds).
import type { ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { listenFailureReason, parseHostPort } from "../../config/host-port.ts";
import type { AccountConfig } from "../../config/types.ts";
import type { Delivery } from "../../core/account.ts";
import { AccountFailure, type Connection, type ConnectionContext } from "../../core/connection.ts";
import type { UnreadLog } from "../../core/state-store.ts";
import { StateWriteError } from "../../core/turn-transaction.ts";
import { encodeMessage } from "../../message.ts";
import { timestampNow } from "../../timestamp.ts";
import type { PostedBody } from "./body-reader.ts";
import { InboundError, type PostTargets, parseBody, toMessage } from "./inbound.ts";
import type { API_KEYS } from "./keys.ts";
import { DEFAULT_BUFFER } from "./keys.ts";
import { PostedMessage } from "./posted-message.ts";
import { RingBuffer } from "./ring-buffer.ts";
import { buildApiServer, type ServingPhase } from "./server.ts";
import { type ServerLimits, serverLimits } from "./server-limits.ts";
import { StreamHub } from "./stream-hub.ts";
import { WebsocketClients } from "./websocket.ts";

const MAX_CLIENT_BACKLOG = 16 * 1024 * 1024;
const DROP_LOG_INTERVAL_MS = 5_000;

export class ApiAccount implements Connection {
  readonly id: string;
  readonly ring: RingBuffer<string>;
  /** The ring's contents as the state file keeps them, so that a restart loses nothing no client has read. */
  readonly #unread: UnreadLog;
  #restored = false;
  readonly bindAddress: string;
  readonly #token: string | undefined;
  readonly #bodyLimit: number;
  readonly #limits: ServerLimits;
  readonly #rawIngress: boolean;
  #phase: ServingPhase = "serving";
  /** What a 503 during a stop tells clients to wait (the bridge's ShutdownTimeout). */
  #retryAfterSeconds = 1;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  /** Where this account may post: gateway name -> its channel there (the client names the gateway). */
  readonly #targets: PostTargets;
  #hub: StreamHub | undefined;
  #websockets: WebsocketClients | undefined;
  #server: FastifyInstance | undefined;
  #dropsSinceLog = 0;
  #dropTimer: NodeJS.Timeout | undefined;

  constructor(config: AccountConfig<typeof API_KEYS>, context: ConnectionContext) {
    this.id = config.id;
    this.#context = context;
    this.#logger = context.logger;
    const settings = config.settings;
    this.bindAddress = settings.BindAddress;
    this.#token = settings.Token;
    this.#bodyLimit = settings.BodyLimit;
    this.#limits = serverLimits(settings);
    this.#rawIngress = settings.RawIngress;
    // Buffer = 0 means Matterbridge's default of 10; the capacity then stays fixed for the account's life.
    this.ring = new RingBuffer<string>(settings.Buffer > 0 ? settings.Buffer : DEFAULT_BUFFER);
    this.#unread = context.unread(this.ring.capacity);
    const targets = new Map<string, string>();
    for (const m of context.memberships) {
      if (m.direction !== "out" && !targets.has(m.gateway)) targets.set(m.gateway, m.channel);
    }
    this.#targets = targets;
  }

  /** The address actually listened on (useful with port 0). */
  get address(): { host: string; port: number } | undefined {
    const address = this.#server?.server.address();
    return address && typeof address === "object" ? { host: address.address, port: address.port } : undefined;
  }

  async connect(): Promise<void> {
    const logger = this.#logger;
    const context = this.#context;
    if (!this.#restored) {
      this.#restored = true;
      for (const encoded of this.#unread.restore()) this.ring.push(encoded);
    }
    this.#phase = "serving";
    this.#hub = new StreamHub({
      maxBufferedBytes: MAX_CLIENT_BACKLOG,
      onSlowClient: (buffered) => logger.warn({ buffered }, "stream client too slow; disconnected"),
    });
    const written = answerableWrites(() => context.written());
    this.#websockets = new WebsocketClients({
      logger,
      debug: context.debug,
      maxBufferedBytes: MAX_CLIENT_BACKLOG,
      post: (bytes) => this.#post({ format: "json", bytes }),
      written,
    });
    const hub = this.#hub;
    this.#server = await buildApiServer({
      accountId: this.id,
      token: this.#token,
      bodyLimit: this.#bodyLimit,
      limits: this.#limits,
      rawIngress: this.#rawIngress,
      logger,
      debug: context.debug,
      drain: () => this.#readAll(),
      dropped: () => this.ring.dropped,
      post: (body) => this.#post(body),
      written,
      addStream: (response: ServerResponse) => hub.add(response),
      websockets: this.#websockets,
      phase: () => this.#phase,
      retryAfterSeconds: () => this.#retryAfterSeconds,
    });
    const { host, port } = parseHostPort(this.bindAddress);
    try {
      await this.#server.listen({ host, port });
    } catch (error) {
      await this.disconnect();
      const reason = listenFailureReason(error);
      // One line naming the key that changes it.
      throw new AccountFailure(`BindAddress ${this.bindAddress} ${reason}: change BindAddress in [${this.id}]`);
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

  #post(body: PostedBody): PostedMessage {
    const message = toMessage(parseBody(body), this.id, this.#targets, timestampNow());
    // The answer is what the client submitted, taken before the router rewrites the message (text, nick): the object
    // itself is the router's then. It names its gateway, so it is routed in that one only.
    const posted = new PostedMessage(message);
    // Written with the turn's other posts in one commit; the server answers once `written()` resolves.
    posted.deliveries = this.#context.receiveInTurn(message).deliveries;
    return posted;
  }

  /** An api account has no channels to join: it serves whoever connects. */
  async join(): Promise<void> {}

  send(delivery: Delivery): string {
    const encoded = encodeMessage(delivery.message);
    if (this.ring.push(encoded)) this.#countDrop();
    this.#unread.append(encoded);
    this.#hub?.broadcast(`${encoded}\n`);
    this.#websockets?.broadcast(encoded);
    // The API has no message ids of its own.
    return "";
  }

  /** `GET /api/messages`: everything held, which the state file then forgets too. */
  #readAll(): string[] {
    const messages = this.ring.drain();
    this.#unread.readAll();
    return messages;
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
    this.#logger.warn(
      { dropped: this.#dropsSinceLog, droppedTotal: this.ring.dropped, capacity: this.ring.capacity },
      "message buffer full: oldest messages dropped (read /api/messages more often or raise Buffer)",
    );
    this.#dropsSinceLog = 0;
  }

  /**
   * The bridge is stopping and drains its queues: posted messages are refused (503 with Retry-After) from now on,
   * while reads, streams and websockets go on, so that clients still get what is delivered to this account.
   */
  stopAccepting(retryAfterSeconds: number): void {
    if (this.#phase === "serving") this.#phase = "draining";
    this.#retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }

  /**
   * Ends every stream (a complete chunked response) and closes every websocket with 1001 "going away", refuses new
   * requests, and resolves once in-flight requests have finished and every connection is closed. It does not cut
   * anything itself: the caller decides how long to wait (ShutdownTimeout).
   */
  async disconnect(): Promise<void> {
    this.#phase = "closing";
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

/**
 * `written()` whose failure to write the state file (a full disk) is a designed answer, 503 with what to do, rather
 * than a 500: the post was not kept. The same promise for the posts of one turn, as `written()` gives them.
 */
function answerableWrites(written: () => Promise<void>): () => Promise<void> {
  let last: Promise<void> | undefined;
  let answer: Promise<void> = Promise.resolve();
  return () => {
    const turn = written();
    if (turn !== last) {
      last = turn;
      answer = turn.catch((error: unknown) => {
        throw error instanceof StateWriteError ? new InboundError(503, error.message) : error;
      });
    }
    return answer;
  };
}
