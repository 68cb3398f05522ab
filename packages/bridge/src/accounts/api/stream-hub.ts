// Fan-out to every /api/stream client: each message is encoded once and written to every open response at once.
// A stream takes nothing from the polling buffer or from other streams (Matterbridge splits messages between them).
import type { ServerResponse } from "node:http";

export interface StreamHubOptions {
  /** A client whose unsent output exceeds this is disconnected rather than buffered without bound. */
  maxBufferedBytes: number;
  onSlowClient?: (buffered: number) => void;
}

export class StreamHub {
  readonly #clients = new Set<ServerResponse>();
  /** A line was already written during this turn of the event loop. */
  #busyTurn = false;
  /** The clients are corked until the end of this turn. */
  #corked = false;
  readonly #endTurn = () => {
    this.#busyTurn = false;
    if (!this.#corked) return;
    this.#corked = false;
    for (const client of this.#clients) client.uncork();
  };

  constructor(readonly options: StreamHubOptions) {}

  get size(): number {
    return this.#clients.size;
  }

  add(response: ServerResponse): void {
    // A client joining while the others are corked is corked too, so every uncork has its cork.
    if (this.#corked) response.cork();
    this.#clients.add(response);
    response.once("close", () => this.#clients.delete(response));
  }

  /**
   * Writes one NDJSON line (with its newline) to every client. The first line of an event-loop turn leaves at once;
   * further lines in the same turn are corked and leave together right after the turn's I/O phase (setImmediate):
   * no delay for a lone message, far fewer syscalls under load.
   */
  broadcast(line: string): void {
    if (this.#clients.size === 0) return;
    if (!this.#busyTurn) {
      this.#busyTurn = true;
      setImmediate(this.#endTurn);
    } else if (!this.#corked) {
      this.#corked = true;
      for (const client of this.#clients) client.cork();
    }
    for (const client of this.#clients) {
      if (client.writableLength > this.options.maxBufferedBytes) {
        this.options.onSlowClient?.(client.writableLength);
        this.#clients.delete(client);
        client.destroy();
        continue;
      }
      client.write(line);
    }
  }

  /**
   * Ends every stream with a complete chunked response (used at shutdown), then closes its connection, so the client
   * sees a proper end rather than a reset. Resolves once every connection is closed.
   */
  closeAll(): Promise<void> {
    const closed = [...this.#clients].map(
      (client) =>
        new Promise<void>((resolve) => {
          if (client.socket === null || client.socket.destroyed) return resolve();
          client.socket.once("close", () => resolve());
          client.end(() => client.socket?.end());
        }),
    );
    this.#clients.clear();
    return Promise.all(closed).then(() => undefined);
  }
}
