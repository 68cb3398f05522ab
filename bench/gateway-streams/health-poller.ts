// Polls a health URL every 100 ms on one keep-alive raw socket and keeps the slowest answer: how long a liveness
// probe waits while the target serves thousands of streams. A poll that is still waiting when the next is due delays
// it (no pile-up); its whole wait is what counts.
import { connect, type Socket } from "node:net";
import { ResponseParser } from "../gateway/response-parser.ts";

export interface HealthSummary {
  polls: number;
  failed: number;
  maxMs: number;
  /** Polls that took over 50 ms. */
  over50ms: number;
  /** The first few of those, as "when (s since start): how long (ms)", to tell which phase of the run stalled. */
  slow: string[];
}

export class HealthPoller {
  readonly #url: URL;
  readonly #latencies: number[] = [];
  readonly #slow: string[] = [];
  #startedAt = 0;
  #failed = 0;
  #socket: Socket | undefined;
  #parser = new ResponseParser();
  #sentAt = 0;
  #waiting: ((ok: boolean) => void) | undefined;
  #stopped = false;
  #loop: Promise<void> | undefined;

  constructor(url: string) {
    this.#url = new URL(url);
  }

  start(): void {
    this.#startedAt = performance.now();
    this.#loop = this.#run();
  }

  async stop(): Promise<HealthSummary> {
    this.#stopped = true;
    await this.#loop;
    this.#socket?.destroy();
    const latencies = this.#latencies;
    return {
      polls: latencies.length,
      failed: this.#failed,
      maxMs: latencies.reduce((max, ms) => Math.max(max, ms), 0),
      over50ms: latencies.filter((ms) => ms > 50).length,
      slow: this.#slow,
    };
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const due = performance.now() + 100;
      const ok = await this.#poll();
      const ms = performance.now() - this.#sentAt;
      if (ok) this.#latencies.push(ms);
      else this.#failed++;
      if (ms > 50 && this.#slow.length < 12) {
        this.#slow.push(`${((this.#sentAt - this.#startedAt) / 1000).toFixed(1)}: ${Math.round(ms)}`);
      }
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  #poll(): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.#waiting = undefined;
        if (!ok) {
          this.#socket?.destroy();
          this.#socket = undefined;
        }
        resolve(ok);
      };
      const timer = setTimeout(() => done(false), 10_000);
      this.#waiting = done;
      this.#parser.reset();
      this.#sentAt = performance.now();
      this.#connected().write(
        `GET ${this.#url.pathname} HTTP/1.1\r\nhost: ${this.#url.host}\r\nconnection: keep-alive\r\n\r\n`,
      );
    });
  }

  #connected(): Socket {
    if (this.#socket && !this.#socket.destroyed) return this.#socket;
    const socket = connect({ port: Number(this.#url.port), host: this.#url.hostname, noDelay: true });
    socket.on("data", (data: Buffer) => {
      try {
        const response = this.#parser.push(data);
        if (response) this.#waiting?.(response.status === 200);
      } catch {
        this.#waiting?.(false);
      }
    });
    socket.on("error", () => this.#waiting?.(false));
    socket.on("close", () => this.#waiting?.(false));
    this.#socket = socket;
    return socket;
  }
}
