// One connection to Mattermost's WebSocket API (/api/v4/websocket): authenticate with the session token, wait for
// `hello`, then hand every event on; a ping every 30 s, and a link that answers none for a whole interval is dead.
// @mattermost/client's WebSocketClient speaks the same protocol, but it is made for browsers: it reconnects on its own
// timers (the core supervises here), prints to the console (our stdout carries JSON log lines) and needs browser
// globals on Node 20. This is the part of it the bridge needs, on `ws`.
import WebSocket from "ws";

const PING_EVERY_MS = 30_000;
const OPEN_TIMEOUT_MS = 30_000;

export interface MattermostEvent {
  event: string;
  /** Unchecked: whatever the server sent (an object for every event it documents). */
  data: unknown;
  broadcast?: { channel_id?: string };
  seq?: number;
}

export interface SocketHandlers {
  event(event: MattermostEvent): void;
  /** The connection ended, after it had opened (not called for close()). */
  closed(reason: Error): void;
}

export class MattermostSocket {
  #socket: WebSocket | undefined;
  #seq = 1;
  #pingTimer: NodeJS.Timeout | undefined;
  #answered = true;
  #closing = false;

  constructor(
    readonly url: string,
    readonly token: string,
    readonly rejectUnauthorized: boolean,
  ) {}

  /** Opens, authenticates and resolves on `hello`; rejects when refused or unreachable. */
  open(handlers: SocketHandlers): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, {
        rejectUnauthorized: this.rejectUnauthorized,
        handshakeTimeout: OPEN_TIMEOUT_MS,
      });
      this.#socket = socket;
      let ready = false;
      const fail = (error: Error) => {
        if (!ready) reject(error);
        else if (!this.#closing) handlers.closed(error);
        this.#stop();
      };
      const timer = setTimeout(() => {
        fail(new Error("no hello from the WebSocket within 30 s"));
        socket.terminate();
      }, OPEN_TIMEOUT_MS);
      socket.on("open", () => this.#send("authentication_challenge", { token: this.token }));
      socket.on("message", (raw) => {
        let message: MattermostEvent & { seq_reply?: number; status?: string; error?: { id?: string } };
        try {
          message = JSON.parse(String(raw)) as typeof message;
        } catch {
          return;
        }
        // A frame that is not an object (null, a number) is nothing the protocol sends; the handler reads the rest.
        if (typeof message !== "object" || message === null) return;
        if (message.seq_reply !== undefined) {
          this.#answered = true;
          if (message.status === "FAIL" && !ready) {
            clearTimeout(timer);
            fail(new Error(`the WebSocket refused the session: ${message.error?.id ?? "FAIL"}`));
            socket.close();
          }
          return;
        }
        if (message.event === "hello" && !ready) {
          ready = true;
          clearTimeout(timer);
          this.#startPings(socket);
          resolve();
          return;
        }
        if (ready && typeof message.event === "string") handlers.event(message);
      });
      socket.on("error", (error) => {
        clearTimeout(timer);
        fail(error);
      });
      socket.on("close", (code) => {
        clearTimeout(timer);
        fail(new Error(`the WebSocket closed (${code})`));
      });
    });
  }

  close(): void {
    this.#closing = true;
    this.#stop();
    this.#socket?.terminate();
    this.#socket = undefined;
  }

  #send(action: string, data: unknown): void {
    this.#socket?.send(JSON.stringify({ seq: this.#seq++, action, data }));
  }

  #startPings(socket: WebSocket): void {
    this.#pingTimer = setInterval(() => {
      if (!this.#answered) {
        // No answer to the last ping for a whole interval: the link is dead, whatever TCP thinks.
        socket.terminate();
        return;
      }
      this.#answered = false;
      this.#send("ping", {});
    }, PING_EVERY_MS);
    this.#pingTimer.unref();
  }

  #stop(): void {
    clearInterval(this.#pingTimer);
    this.#pingTimer = undefined;
  }
}
