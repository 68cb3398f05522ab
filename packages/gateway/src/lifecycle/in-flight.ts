import type { EventBus } from "../telemetry/events.ts";

/** Attempts in flight per backend and model, from the event stream: an unload waits for (or refuses) these. */
export class ModelsInFlight {
  readonly #counts = new Map<string, number>();
  readonly #waiters = new Set<() => void>();

  constructor(events: EventBus) {
    events.on("attempt_started", (event) => this.#add(event.backend, event.model, 1));
    events.on("attempt_finished", (event) => this.#add(event.backend, event.model, -1));
    events.on("attempt_failed", (event) => this.#add(event.backend, event.model, -1));
  }

  count(backend: string, model: string): number {
    return this.#counts.get(`${backend}\u0000${model}`) ?? 0;
  }

  /** Resolves once `backend` has no attempt in flight for `model`. */
  idle(backend: string, model: string): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.count(backend, model) > 0) return;
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
      check();
    });
  }

  #add(backend: string, model: string, delta: number): void {
    const key = `${backend}\u0000${model}`;
    const count = (this.#counts.get(key) ?? 0) + delta;
    if (count > 0) this.#counts.set(key, count);
    else this.#counts.delete(key);
    if (delta < 0) for (const waiter of [...this.#waiters]) waiter();
  }
}
