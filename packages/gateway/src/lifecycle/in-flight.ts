import type { EventBus } from "../telemetry/events.ts";

/** Attempts in flight per backend and model, from the event stream: an unload waits for (or refuses) these. */
export class ModelsInFlight {
  /** By backend, then model (no key string built per event); a model's entry goes when its count is back to 0. */
  readonly #counts = new Map<string, Map<string, number>>();
  readonly #waiters = new Set<() => void>();

  constructor(events: EventBus) {
    events.on("attempt_started", (event) => this.#add(event.backend, event.model, 1));
    events.on("attempt_finished", (event) => this.#add(event.backend, event.model, -1));
    events.on("attempt_failed", (event) => this.#add(event.backend, event.model, -1));
  }

  count(backend: string, model: string): number {
    return this.#counts.get(backend)?.get(model) ?? 0;
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
    let models = this.#counts.get(backend);
    if (models === undefined) {
      models = new Map();
      this.#counts.set(backend, models);
    }
    const count = (models.get(model) ?? 0) + delta;
    if (count > 0) models.set(model, count);
    else models.delete(model);
    // The waiters' own checks remove them: a copy is iterated only when there are any.
    if (delta < 0 && this.#waiters.size > 0) for (const waiter of [...this.#waiters]) waiter();
  }
}
