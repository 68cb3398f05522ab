// Writes a streamed answer event by event: pacing, die-mid-stream, and stopping when the client has gone.
import type { Exchange } from "./server.ts";

export class EventWriter {
  readonly #exchange: Exchange;
  readonly #intervalMs: number;
  #written = 0;
  #stopped = false;

  constructor(exchange: Exchange, contentType: string, headers: Record<string, string> = {}) {
    this.#exchange = exchange;
    this.#intervalMs = exchange.options.chunkIntervalMs ?? 0;
    const { res } = exchange;
    res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache", ...headers });
    res.flushHeaders();
    if (exchange.dieAfter === 0) this.#die();
  }

  /** False once the stream must stop: the client went away, or die-mid-stream cut it. */
  get open(): boolean {
    return !this.#stopped && !this.#exchange.res.destroyed;
  }

  /** Writes one event (an SSE event or an NDJSON line); resolves false when the stream is over. */
  async write(text: string): Promise<boolean> {
    if (!this.open) return false;
    if (this.#written > 0 && this.#intervalMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.#intervalMs));
      if (!this.open) return false;
    }
    this.#exchange.res.write(text);
    this.#written++;
    if (this.#exchange.dieAfter !== undefined && this.#written >= this.#exchange.dieAfter) {
      this.#die();
      return false;
    }
    return true;
  }

  end(): void {
    if (this.open) this.#exchange.res.end();
  }

  #die(): void {
    this.#stopped = true;
    this.#exchange.kill();
  }
}
