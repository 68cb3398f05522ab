// The ordinary request (see request-head.ts for exactly which) read and answered straight on the connection, without
// node:http's request and response objects; on a service's busiest routes those cost about as much CPU as the rest of
// the request (docs/benchmarks.md, "Raw ingress" and "Bridge over IRC"). Every other request is handed, with the
// connection and the bytes not yet read, to node:http's own connection listener, which then serves that connection as
// it always did.
//
// A connection stays here while it carries requests taken here: up to maxPipelined at a time (the next pipelined one
// is read while the earlier ones are answered, the answers leaving in order), a hand-off only once every answer is
// written. The head must arrive within headersTimeout and the body within requestTimeout (else node:http's own 408,
// through the server's clientError listeners), and an idle connection is closed after keepAliveTimeout. Once the
// service stops, idle connections are closed and busy ones end with their answers.
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { type LiveEntry, LiveList } from "../live-list.ts";
import { closeIfStillIdle } from "./idle-close.ts";
import { RawRequest } from "./raw-request.ts";
import { RawResponse, type ResponseEnd } from "./raw-response.ts";
import { type RequestHead, readRequestHead } from "./request-head.ts";

/** Pipelined bytes held while an answer is written; past this, the connection is not read until it is done. */
const MAX_HELD_BYTES = 64 * 1024;

export interface RawIngressOptions {
  /** The paths served here (POST only). */
  paths: ReadonlySet<string>;
  /** The Content-Type values taken here, spelled as clients send them (any other goes to node:http). */
  contentTypes: ReadonlySet<string>;
  /** Larger bodies go to node:http (which streams them to the same routes). */
  maxBodyBytes: number;
  /**
   * Requests of one connection served at once (default 1: the next is read once the answer is written). More lets a
   * route that answers later, such as one waiting for a commit, answer a client's pipelined requests together.
   */
  maxPipelined?: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Serves a request read here; false when it cannot (the service is closing): node:http then reads it again. */
  serve(request: RawRequest, response: RawResponse): boolean;
  /** `serve` threw (a fault): its connection is closed. */
  failed(error: unknown): void;
}

type ConnectionListener = (this: Server, socket: Socket) => void;

export class RawIngress {
  /** A LiveList, not a Set: one connection per request (clients without keep-alive) would promote them (live-list.ts). */
  readonly #connections = new LiveList<RawConnection>();
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
    server.on("connection", (socket: Socket) => {
      const connection = new RawConnection(socket, this);
      connection.listed = this.#connections.add(connection);
    });
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
    for (const connection of this.#connections.values()) connection.stopKeepingAlive();
  }

  handOff(connection: RawConnection, socket: Socket): void {
    this.#unlist(connection);
    (this.#nodeListener as ConnectionListener).call(this.#server as Server, socket);
  }

  /** A request not received in time: answered as node:http answers it (the server's clientError listeners). */
  timedOut(connection: RawConnection, socket: Socket): void {
    this.#unlist(connection);
    const server = this.#server as Server;
    const error = Object.assign(new Error("request timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" });
    if (server.listenerCount("clientError") > 0) server.emit("clientError", error, socket);
    else socket.end("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n");
  }

  forget(connection: RawConnection): void {
    this.#unlist(connection);
  }

  #unlist(connection: RawConnection): void {
    if (connection.listed !== undefined) this.#connections.remove(connection.listed);
  }
}

class RawConnection implements ResponseEnd {
  /** Its place among the ingress's connections (undefined until listed, or when it closed as it was made). */
  listed: LiveEntry<RawConnection> | undefined;
  #held: Buffer | undefined;
  /**
   * The requests served and not yet answered in full, in their order, and their answers (at the same index): two
   * arrays rather than an object per request.
   */
  #inFlight: RawRequest[] = [];
  #answering: RawResponse[] = [];
  /** The answers not yet all in the socket's hands, in their order: the first one has the turn to write. */
  #unwritten: RawResponse[] = [];
  /** When the request being read must be complete (0: none being read). */
  #deadline = 0;
  /** The head of the request being read, once it is in (its body is not). */
  #head: RequestHead | undefined;
  #clientEnded = false;
  readonly #keepAliveSeconds: number;
  readonly #maxPipelined: number;

  constructor(
    private readonly socket: Socket,
    private readonly ingress: RawIngress,
  ) {
    this.#keepAliveSeconds = Math.floor(ingress.options.keepAliveTimeoutMs / 1000);
    this.#maxPipelined = ingress.options.maxPipelined ?? 1;
    socket.setNoDelay(true);
    for (const [event, listener] of this.#listeners()) socket.on(event, listener);
    if (ingress.stopping) socket.destroy();
    else socket.setTimeout(ingress.options.keepAliveTimeoutMs);
  }

  readonly #onData = (chunk: Buffer): void => {
    this.#held = this.#held === undefined ? chunk : Buffer.concat([this.#held, chunk]);
    if (this.#inFlight.length >= this.#maxPipelined) {
      if (this.#held.length > MAX_HELD_BYTES) this.socket.pause();
      return;
    }
    this.#readNext();
  };

  /** Serves the complete requests held, as many as may be in flight; hands the connection off at the first other. */
  #readNext(): void {
    while (this.#held !== undefined && this.#inFlight.length < this.#maxPipelined) {
      if (!this.#readOne(this.#held)) return;
    }
  }

  /** Reads and serves the request at the start of `held`; false when nothing more can be read now. */
  #readOne(held: Buffer): boolean {
    const { options } = this.ingress;
    const now = Date.now();
    if (this.#deadline === 0) this.#deadline = now + options.headersTimeoutMs;
    else if (now >= this.#deadline) {
      if (this.#inFlight.length === 0) this.#timedOut();
      return false;
    }
    let head = this.#head;
    if (head === undefined) {
      const reading = readRequestHead(held, options.paths, options.maxBodyBytes, options.contentTypes);
      if (reading.kind === "other") {
        // node:http answers in order too: it takes the connection once every answer given here is written.
        if (this.#inFlight.length === 0) this.#handOff();
        return false;
      }
      if (reading.kind === "incomplete") {
        this.#waitUntilDeadline(now);
        return false;
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
      return false;
    }
    this.#head = undefined;
    this.#deadline = 0;
    // Consumed before serving: whatever follows is the next request.
    this.#held = held.length > end ? held.subarray(end) : undefined;
    const request = new RawRequest(head.path, head.headers, held.subarray(head.bodyStart, end), this.socket);
    const keepAlive = !this.#clientEnded && !this.ingress.stopping;
    const hasTurn = this.#unwritten.length === 0;
    const response = new RawResponse(this.socket, keepAlive, this.#keepAliveSeconds, this, hasTurn);
    this.#inFlight.push(request);
    this.#answering.push(response);
    this.#unwritten.push(response);
    this.socket.setTimeout(0);
    let served: boolean;
    try {
      served = options.serve(request, response);
    } catch (error) {
      // A fault of the route itself: that connection ends, the service goes on.
      options.failed(error);
      this.socket.destroy();
      return false;
    }
    if (served) return true;
    this.#inFlight.pop();
    this.#answering.pop();
    this.#unwritten.pop();
    this.#held = held;
    if (this.#inFlight.length === 0) this.#handOff();
    return false;
  }

  /** An answer is in the socket's hands (RawResponse): the next one may write. */
  handedOver(response: RawResponse): void {
    if (this.#unwritten[0] !== response) return;
    this.#unwritten.shift();
    this.#unwritten[0]?.takeTurn();
  }

  /** An answer was written (RawResponse): the next request, or the end of the connection. */
  finished(response: RawResponse, keepAlive: boolean): void {
    const at = this.#answering.indexOf(response);
    if (at >= 0) {
      this.#inFlight.splice(at, 1);
      this.#answering.splice(at, 1);
    }
    if (!keepAlive || this.#clientEnded || this.ingress.stopping) {
      if (this.#inFlight.length === 0 || !keepAlive) this.socket.end();
      return;
    }
    if (this.socket.isPaused()) this.socket.resume();
    if (this.#inFlight.length === 0) this.socket.setTimeout(this.ingress.options.keepAliveTimeoutMs);
    this.#readNext();
  }

  stopKeepingAlive(): void {
    if (this.#inFlight.length === 0) {
      this.socket.destroy();
      return;
    }
    for (const response of this.#answering) if (!response.headersSent) response.shouldKeepAlive = false;
  }

  #waitUntilDeadline(now: number): void {
    if (this.#inFlight.length === 0) this.socket.setTimeout(Math.max(1, this.#deadline - now));
  }

  /** As node:http answers a request not received in time: a 408, and the connection closed. */
  #timedOut(): void {
    this.#detach();
    this.ingress.timedOut(this, this.socket);
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
   * The client ended its side: as node:http does (httpAllowHalfOpen off), the connection is ended, and the answers
   * still being written are abandoned (the client is gone: what they wait for is cancelled).
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
    const requests = this.#inFlight;
    const responses = this.#answering;
    this.#inFlight = [];
    this.#answering = [];
    this.#unwritten = [];
    for (let i = 0; i < requests.length; i++) {
      const response = responses[i] as RawResponse;
      if (response.writableFinished) continue;
      (requests[i] as RawRequest).emit("close");
      response.abandon();
    }
  }

  readonly #onError = (): void => {
    // "close" follows; what is in flight is abandoned there.
  };

  readonly #onDrain = (): void => {
    this.#unwritten[0]?.emit("drain");
  };

  readonly #onTimeout = (): void => {
    if (this.#inFlight.length > 0) return;
    if (this.#deadline === 0 || this.#held === undefined) {
      // Idle past keepAliveTimeout: closed unless a request was waiting to be read (idle-close.ts).
      closeIfStillIdle(this.socket, () => this.socket.destroy());
      return;
    }
    const now = Date.now();
    if (now >= this.#deadline) this.#timedOut();
    else this.#waitUntilDeadline(now);
  };
}
