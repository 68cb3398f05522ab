// A small DDP client on `ws` for Rocket.Chat's realtime API (developer.rocket.chat "Realtime API"): the `connect`
// handshake, methods (`login` with a resume token), subscriptions (`sub` → `ready` or `nosub`), `changed` frames
// handed to the account, and pings both ways. It never reconnects on its own: a closed socket, or silence for
// twice the ping interval, is reported once through `closed` and the core decides what follows.
import WebSocket from "ws";

const PING_EVERY_MS = 30_000;
const OPEN_TIMEOUT_MS = 30_000;

class DdpError extends Error {
  override readonly name = "DdpError";
  constructor(
    readonly code: unknown,
    message: string,
  ) {
    super(message);
  }
}

export interface DdpHandlers {
  /** A `changed` frame of a subscribed collection (its `fields`, untrusted). */
  changed(collection: string, fields: unknown): void;
  /** A frame that is not DDP as the client knows it. */
  malformed(frame: unknown, reason: string): void;
  closed(reason: string): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

function errorOf(value: unknown): DdpError {
  const error = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const text = [error.reason, error.message, error.error].find((v) => typeof v === "string" && v !== "");
  return new DdpError(error.error, typeof text === "string" ? text : "the server refused");
}

export class DdpClient {
  readonly #url: string;
  readonly #verifyTls: boolean;
  #socket: WebSocket | undefined;
  #handlers: DdpHandlers | undefined;
  readonly #pending = new Map<string, Pending>();
  #nextId = 0;
  #timer: NodeJS.Timeout | undefined;
  #heard = true;
  #closed = false;

  constructor(url: string, verifyTls: boolean) {
    this.#url = url;
    this.#verifyTls = verifyTls;
  }

  /** Opens the socket and completes DDP's `connect` handshake. */
  open(handlers: DdpHandlers): Promise<void> {
    this.#handlers = handlers;
    const socket = new WebSocket(this.#url, { rejectUnauthorized: this.#verifyTls, handshakeTimeout: OPEN_TIMEOUT_MS });
    this.#socket = socket;
    const connected = new Promise<void>((resolve, reject) => {
      this.#pending.set("connect", { resolve: () => resolve(), reject });
    });
    socket.on("open", () => socket.send(JSON.stringify({ msg: "connect", version: "1", support: ["1"] })));
    socket.on("message", (data) => this.#onFrame(String(data)));
    socket.on("error", (error) => this.#shutDown(error.message));
    socket.on("close", (code) => this.#shutDown(`the realtime connection closed (${code})`));
    this.#timer = setInterval(() => {
      if (!this.#heard) {
        this.#shutDown(`no answer from the server for ${(2 * PING_EVERY_MS) / 1000} s`);
        return;
      }
      this.#heard = false;
      this.#send({ msg: "ping" });
    }, PING_EVERY_MS);
    this.#timer.unref();
    return connected;
  }

  call(method: string, params: unknown[]): Promise<unknown> {
    return this.#request({ msg: "method", method, params });
  }

  async subscribe(name: string, params: unknown[]): Promise<void> {
    await this.#request({ msg: "sub", name, params });
  }

  close(): void {
    this.#handlers = undefined;
    this.#shutDown("closed");
  }

  #request(frame: Record<string, unknown>): Promise<unknown> {
    const id = String(++this.#nextId);
    const answer = new Promise<unknown>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#send({ ...frame, id });
    return answer;
  }

  #send(frame: Record<string, unknown>): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(frame));
  }

  #settle(id: unknown, error: unknown, value?: unknown): void {
    const pending = typeof id === "string" ? this.#pending.get(id) : undefined;
    if (pending === undefined) return;
    this.#pending.delete(id as string);
    if (error !== undefined) pending.reject(errorOf(error));
    else pending.resolve(value);
  }

  #onFrame(raw: string): void {
    this.#heard = true;
    let frame: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        this.#handlers?.malformed(parsed, "the frame is not an object");
        return;
      }
      frame = parsed as Record<string, unknown>;
    } catch {
      this.#handlers?.malformed(raw, "the frame is not JSON");
      return;
    }
    switch (frame.msg) {
      case "connected":
        this.#settle("connect", undefined);
        break;
      case "failed":
        this.#settle("connect", { reason: `the server speaks DDP ${String(frame.version)}` });
        break;
      case "ping":
        this.#send(frame.id === undefined ? { msg: "pong" } : { msg: "pong", id: frame.id });
        break;
      case "result":
        this.#settle(frame.id, frame.error, frame.result);
        break;
      case "ready":
        for (const id of Array.isArray(frame.subs) ? frame.subs : []) this.#settle(id, undefined);
        break;
      case "nosub":
        this.#settle(frame.id, frame.error ?? { reason: "the subscription ended" });
        break;
      case "changed":
      case "added":
        if (typeof frame.collection === "string") this.#handlers?.changed(frame.collection, frame.fields);
        else this.#handlers?.malformed(frame, "the frame has no collection");
        break;
      case "error":
        this.#handlers?.malformed(frame, `the server says: ${String(frame.reason)}`);
        break;
      default:
        // pong, updated, removed, the server_id greeting: nothing to do.
        if (frame.msg !== undefined && typeof frame.msg !== "string") this.#handlers?.malformed(frame, "bad msg");
    }
  }

  #shutDown(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    this.#socket?.removeAllListeners();
    this.#socket?.on("error", () => {});
    this.#socket?.terminate();
    for (const pending of this.#pending.values()) pending.reject(new Error(reason));
    this.#pending.clear();
    const handlers = this.#handlers;
    this.#handlers = undefined;
    handlers?.closed(reason);
  }
}
