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

  constructor(readonly options: StreamHubOptions) {}

  get size(): number {
    return this.#clients.size;
  }

  add(response: ServerResponse): void {
    this.#clients.add(response);
    response.once("close", () => this.#clients.delete(response));
  }

  /** Writes one NDJSON line (with its newline) to every client. */
  broadcast(line: string): void {
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

  /** Ends every stream (used at shutdown). */
  closeAll(): void {
    for (const client of this.#clients) client.end();
    this.#clients.clear();
  }
}
