import type { Server, ServerResponse } from "node:http";
import { LiveList } from "@switchboard/common";

/**
 * Keep-alive connections end as soon as they have nothing to do once the gateway is stopping, rather than when a
 * periodic sweep or their keep-alive timeout finds them idle: an answer still to be sent says `Connection: close`,
 * and a connection whose last answer just finished is closed on the next turn.
 */
export class CloseOnIdle {
  /** A LiveList, not a Set: a Set gaining and losing one per request promoted them (see live-list.ts). */
  readonly #responses = new LiveList<ServerResponse>();
  #stopping = false;

  constructor(private readonly server: Server) {
    server.on("request", (_request, response: ServerResponse) => {
      const entry = this.#responses.add(response);
      response.once("close", () => {
        this.#responses.remove(entry);
        // After the response's own bookkeeping: only then is its connection idle.
        if (this.#stopping) setImmediate(() => server.closeIdleConnections());
      });
    });
  }

  /** From now on, no connection is kept alive: those idle now are closed, the others when their answer is done. */
  stop(): void {
    this.#stopping = true;
    for (const response of this.#responses.values()) if (!response.headersSent) response.shouldKeepAlive = false;
    this.server.closeIdleConnections();
  }
}
