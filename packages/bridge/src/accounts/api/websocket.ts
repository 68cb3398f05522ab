// /api/websocket clients of one api account: a greeting on connect, every delivered message pushed as a frame,
// and client frames routed like a POST and echoed to the account's other websocket clients.
import type { Logger } from "pino";
import type { RawData, WebSocket } from "ws";
import { connectedEvent, encodeMessage } from "../../message.ts";
import { InboundError } from "./inbound.ts";

export interface WebsocketDeps {
  logger: Logger;
  debug: boolean;
  /** A client whose unsent frames exceed this is disconnected rather than buffered without bound. */
  maxBufferedBytes: number;
  /** Validates and routes a frame like a POST body; returns the resulting Message encoded, or throws InboundError. */
  post(bytes: Buffer): { encoded: string };
  /** Resolves once what was posted so far is in the state file. */
  written(): Promise<void>;
}

export class WebsocketClients {
  readonly #clients = new Set<WebSocket>();

  constructor(readonly deps: WebsocketDeps) {}

  get size(): number {
    return this.#clients.size;
  }

  accept(socket: WebSocket): void {
    this.#clients.add(socket);
    socket.on("close", () => this.#clients.delete(socket));
    socket.on("error", () => this.#clients.delete(socket));
    socket.on("message", (data, isBinary) => this.#onFrame(socket, data, isBinary));
    socket.send(encodeMessage(connectedEvent()));
  }

  /** Sends a frame to every client except `except`. */
  broadcast(frame: string, except?: WebSocket): void {
    for (const client of this.#clients) {
      if (client === except || client.readyState !== client.OPEN) continue;
      if (client.bufferedAmount > this.deps.maxBufferedBytes) {
        this.deps.logger.warn({ buffered: client.bufferedAmount }, "websocket client too slow; disconnected");
        this.#clients.delete(client);
        client.terminate();
        continue;
      }
      client.send(frame);
    }
  }

  /** Closes every client with 1001 "going away" and resolves once each closing handshake is done. */
  closeAll(): Promise<void> {
    const closed = [...this.#clients].map(
      (client) =>
        new Promise<void>((resolve) => {
          if (client.readyState === client.CLOSED) return resolve();
          client.once("close", () => resolve());
          client.close(1001, "server shutting down");
        }),
    );
    this.#clients.clear();
    return Promise.all(closed).then(() => undefined);
  }

  #onFrame(socket: WebSocket, data: RawData, isBinary: boolean): void {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    try {
      if (isBinary) throw new InboundError(400, "binary frames are not accepted: send a JSON message as text");
      const { encoded } = this.deps.post(bytes);
      // Echoed once it is in the state file, like a POST's answer; commits keep their order, so echoes keep theirs.
      this.deps.written().then(
        () => this.broadcast(encoded, socket),
        (error: unknown) => {
          // A state file that cannot be written is logged by the store, once a minute; not once per frame.
          if (!(error instanceof InboundError)) {
            this.deps.logger.error({ err: error }, "websocket message not kept: the state file failed");
          } else if (this.deps.debug) this.deps.logger.debug({ reason: error.message }, "websocket message not kept");
        },
      );
    } catch (error) {
      // Like Matterbridge, a bad frame is dropped and the connection stays usable; the reason is logged with -debug.
      if (!(error instanceof InboundError)) throw error;
      if (this.deps.debug) this.deps.logger.debug({ reason: error.message }, "websocket frame rejected");
    }
  }
}
