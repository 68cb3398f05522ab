import { thrownMessage } from "@switchboard/common";
import type { HealthCheckConfig } from "../config/schema.ts";
import type { BackendState } from "./backend-state.ts";
import type { Registry } from "./registry.ts";

/** Probes every backend concurrently, every interval; a round never overlaps the previous one. */
export class HealthChecker {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  /** Aborts the probes in flight at stop(): a backend that does not answer must not hold the shutdown. */
  readonly #stop = new AbortController();

  constructor(
    private readonly registry: Registry,
    private readonly config: HealthCheckConfig,
  ) {}

  /** Runs one round now and then keeps probing every interval_seconds. */
  async start(): Promise<void> {
    await this.checkNow();
    this.#schedule();
  }

  /** One round of probes; resolves when every probe has finished or timed out. */
  checkNow(): Promise<void> {
    this.#running ??= this.#round().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Probes one backend now (one just added to the fleet), outside the rounds. */
  checkBackend(state: BackendState): Promise<void> {
    return this.#probe(state);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#stop.abort();
    await this.#running;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.checkNow().finally(() => this.#schedule());
    }, this.config.interval_seconds * 1000);
    this.#timer.unref();
  }

  async #round(): Promise<void> {
    await Promise.allSettled(this.registry.backends.map((state) => this.#probe(state)));
  }

  async #probe(state: BackendState): Promise<void> {
    const started = performance.now();
    const timeoutMs = this.config.timeout_seconds * 1000;
    try {
      const models = await state.backend.probe(timeoutMs, this.#stop.signal);
      if (this.#stopped) return;
      this.registry.probeSucceeded(state, models, performance.now() - started);
    } catch (error) {
      if (this.#stopped) return;
      const message = thrownMessage(error);
      this.registry.failed(state, message);
    }
  }
}
