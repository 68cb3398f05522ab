import type { BackendState } from "../fleet/backend-state.ts";
import type { EventBus } from "../telemetry/events.ts";

/** Weight of the newest observation in the moving average (as the probe-latency average). */
const EMA_WEIGHT = 0.2;

/**
 * Observed service times per backend (a moving average of attempt durations, from the event stream), and the wait
 * estimates built on them: `eta_seconds` in 503 bodies and `Retry-After`. No observation yet → no estimate (null),
 * never a made-up constant.
 */
export class ServiceTimes {
  readonly #averageMs = new Map<string, number>();

  constructor(events: EventBus) {
    const observe = (event: { backend: string; durationMs: number }) => {
      const previous = this.#averageMs.get(event.backend);
      this.#averageMs.set(
        event.backend,
        previous === undefined ? event.durationMs : previous + EMA_WEIGHT * (event.durationMs - previous),
      );
    };
    events.on("attempt_finished", (event) => {
      if (event.outcome !== "client_abort") observe(event);
    });
    events.on("attempt_failed", observe);
  }

  averageMs(backend: string): number | undefined {
    return this.#averageMs.get(backend);
  }

  /**
   * Seconds until a request with `ahead` requests before it gets a slot on one of `backends`: they serve
   * Σ max_concurrent at a time, each taking the mean observed service time.
   */
  etaSeconds(backends: readonly BackendState[], ahead: number): number | null {
    let capacity = 0;
    let total = 0;
    let observed = 0;
    for (const state of backends) {
      capacity += state.settings.maxConcurrent ?? 1;
      const average = this.#averageMs.get(state.name);
      if (average === undefined) continue;
      total += average;
      observed++;
    }
    if (observed === 0 || capacity === 0) return null;
    const seconds = ((total / observed) * (Math.floor(ahead / capacity) + 1)) / 1000;
    // Rounded up to the millisecond: an estimate from sub-millisecond answers is small, never "no wait".
    return Math.max(0.001, Math.ceil(seconds * 1000) / 1000);
  }
}
