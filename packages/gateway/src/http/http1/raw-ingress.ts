// The ordinary model request (see request-head.ts for exactly which) read and answered straight on the connection,
// without node:http's request and response objects; on the busiest routes those cost about as much CPU as the rest
// of a proxied request (docs/benchmarks.md, "Raw ingress"). Every other request is handed, with the connection and
// the bytes not yet read, to node:http's own connection listener, which then serves that connection as it always did.
//
// A connection stays here while it carries requests taken here: one at a time, the next (pipelined) read once the
// answer is written; the head must arrive within headersTimeout and the body within requestTimeout (408 otherwise,
// as node answers), and an idle connection is closed after keepAliveTimeout. Once the gateway stops, idle connections
// are closed and busy ones end with their answer.
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { answerClientError } from "../framework-errors.ts";
import { RawRequest } from "./raw-request.ts";
import { RawResponse, type ResponseEnd } from "./raw-response.ts";
import { type RequestHead, readRequestHead } from "./request-head.ts";

/** Pipelined bytes held while an answer is written; past this, the connection is not read until it is done. */
const MAX_HELD_BYTES = 64 * 1024;

export interface RawIngressOptions {
  /** The paths served here (POST only). */
  paths: ReadonlySet<string>;
  /** Larger bodies go to node:http (which streams them to the same routes). */
  maxBodyBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Serves a request read here; false when it cannot (the gateway is closing): node:http then reads it again. */
  serve(request: RawRequest, response: RawResponse): boolean;
  /** `serve` threw (a fault): its connection is closed. */
  failed(error: unknown): void;
}

type ConnectionListener = (this: Server, socket: Socket) => void;

export class RawIngress {
  readonly #connections = new Set<RawConnection>();
  #stopping = false;
  #nodeListener: ConnectionListener | undefined;
  #server: Server | undefined;

  constructor(readonly options: RawIngressOptions) {}

  /** Takes the server's new connections; node:http's listener gets those handed on. */
  install(server: Server): void {
    const listeners = server.listeners("connection") as ConnectionListener[];
    if (listeners.length !== 1) throw new Error("the raw ingress expects node:http's one connection listener");
    this.#nodeListener = listeners[0];
    this.#server = server;
    server.removeAllListeners("connection");
    server.on("connection", (socket: Socket) => this.#connections.add(new RawConnection(socket, this)));
    // fastify (forceCloseConnections: "idle") and CloseOnIdle close idle connections through this, when stopping.
    const closeNodeIdle = server.closeIdleConnections.bind(server);
    server.closeIdleConnections = () => {
      closeNodeIdle();
      this.stopKeepingAlive();
    };
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  /** From now on no connection here is kept alive: idle ones close now, busy ones after their answer. */
  stopKeepingAlive(): void {
    this.#stopping = true;
    for (const connection of this.#connections) connection.stopKeepingAlive();
  }

  handOff(connection: RawConnection, socket: Socket): void {
    this.#connections.delete(connection);
    (this.#nodeListener as ConnectionListener).call(this.#server as Server, socket);
  }

  forget(connection: RawConnection): void {
    this.#connections.delete(connection);
  }
}

class RawConnection implements ResponseEnd {
  #held: Buffer | undefined;
  #request: RawRequest | undefined;
  #response: RawResponse | undefined;
  /** When the request being read must be complete (0: none being read). */
  #deadline = 0;
  /** The head of the request being read, once it is in (its body is not). */
  #head: RequestHead | undefined;
  #clientEnded = false;
  readonly #keepAliveSeconds: number;

  constructor(
    private readonly socket: Socket,
    private readonly ingress: RawIngress,
  ) {
    this.#keepAliveSeconds = Math.floor(ingress.options.keepAliveTimeoutMs / 1000);
    socket.setNoDelay(true);
    for (const [event, listener] of this.#listeners()) socket.on(event, listener);
    if (ingress.stopping) socket.destroy();
    else socket.setTimeout(ingress.options.keepAliveTimeoutMs);
  }

  readonly #onData = (chunk: Buffer): void => {
    this.#held = this.#held === undefined ? chunk : Buffer.concat([this.#held, chunk]);
    if (this.#response !== undefined) {
      if (this.#held.length > MAX_HELD_BYTES) this.socket.pause();
      return;
    }
    this.#readNext();
  };

  #readNext(): void {
    const held = this.#held;
    if (held === undefined) return;
    const { options } = this.ingress;
    const now = Date.now();
    if (this.#deadline === 0) this.#deadline = now + options.headersTimeoutMs;
    else if (now >= this.#deadline) {
      this.#timedOut();
      return;
    }
    let head = this.#head;
    if (head === undefined) {
      const reading = readRequestHead(held, options.paths, options.maxBodyBytes);
      if (reading.kind === "other") {
        this.#handOff();
        return;
      }
      if (reading.kind === "incomplete") {
        this.#waitUntilDeadline(now);
        return;
      }
      head = reading;
    }
    const end = head.bodyStart + head.contentLength;
    if (held.length < end) {
      if (this.#head === undefined) {
        // The head is in: the whole request has until requestTimeout from its start.
        this.#head = head;
        this.#deadline += options.requestTimeoutMs - options.headersTimeoutMs;
      }
      this.#waitUntilDeadline(now);
      return;
    }
    this.#head = undefined;
    this.#deadline = 0;
    // Consumed before serving: whatever follows is the next request.
    this.#held = held.length > end ? held.subarray(end) : undefined;
    const request = new RawRequest(head.path, head.headers, held.subarray(head.bodyStart, end), this.socket);
    const keepAlive = !this.#clientEnded && !this.ingress.stopping;
    const response = new RawResponse(this.socket, keepAlive, this.#keepAliveSeconds, this);
    this.#request = request;
    this.#response = response;
    this.socket.setTimeout(0);
    let served: boolean;
    try {
      served = options.serve(request, response);
    } catch (error) {
      // A fault of the route itself: that connection ends, the gateway goes on.
      options.failed(error);
      this.socket.destroy();
      return;
    }
    if (!served) {
      this.#request = undefined;
      this.#response = undefined;
      this.#held = held;
      this.#handOff();
    }
  }

  /** The answer was written (RawResponse): the next request, or the end of the connection. */
  finished(keepAlive: boolean): void {
    this.#request = undefined;
    this.#response = undefined;
    if (!keepAlive || this.#clientEnded || this.ingress.stopping) {
      this.socket.end();
      return;
    }
    if (this.socket.isPaused()) this.socket.resume();
    this.socket.setTimeout(this.ingress.options.keepAliveTimeoutMs);
    this.#readNext();
  }

  stopKeepingAlive(): void {
    if (this.#response === undefined) this.socket.destroy();
    else if (!this.#response.headersSent) this.#response.shouldKeepAlive = false;
  }

  #waitUntilDeadline(now: number): void {
    this.socket.setTimeout(Math.max(1, this.#deadline - now));
  }

  /** As node:http answers a request not received in time: a 408, and the connection closed. */
  #timedOut(): void {
    this.#detach();
    this.ingress.forget(this);
    answerClientError(Object.assign(new Error("request timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" }), this.socket);
  }

  /** node:http takes the connection over, with the bytes not read yet. */
  #handOff(): void {
    const socket = this.socket;
    this.#detach();
    socket.pause();
    if (this.#held !== undefined) socket.unshift(this.#held);
    this.#held = undefined;
    this.ingress.handOff(this, socket);
    socket.resume();
  }

  /** What this connection listens to on its socket (attached once, detached on a hand-off or a timeout). */
  // biome-ignore lint/suspicious/noExplicitAny: EventEmitter's own listener type
  #listeners(): [string, (...args: any[]) => void][] {
    return [
      ["data", this.#onData],
      ["end", this.#onEnd],
      ["close", this.#onClose],
      ["error", this.#onError],
      ["drain", this.#onDrain],
      ["timeout", this.#onTimeout],
    ];
  }

  #detach(): void {
    const socket = this.socket;
    socket.setTimeout(0);
    for (const [event, listener] of this.#listeners()) socket.off(event, listener);
  }

  /**
   * The client ended its side: as node:http does (httpAllowHalfOpen off), the connection is ended, and an answer still
   * being written is abandoned (the client is gone: its upstream call is cancelled).
   */
  readonly #onEnd = (): void => {
    this.#clientEnded = true;
    this.#abandon();
    this.socket.end();
  };

  readonly #onClose = (): void => {
    this.ingress.forget(this);
    this.#abandon();
  };

  #abandon(): void {
    const response = this.#response;
    if (response === undefined || response.writableFinished) return;
    this.#response = undefined;
    this.#request?.emit("close");
    this.#request = undefined;
    response.abandon();
  }

  readonly #onError = (): void => {
    // "close" follows; what is in flight is abandoned there.
  };

  readonly #onDrain = (): void => {
    this.#response?.emit("drain");
  };

  readonly #onTimeout = (): void => {
    if (this.#response !== undefined) return;
    if (this.#deadline === 0 || this.#held === undefined) {
      this.socket.destroy();
      return;
    }
    const now = Date.now();
    if (now >= this.#deadline) this.#timedOut();
    else this.#waitUntilDeadline(now);
  };
}
