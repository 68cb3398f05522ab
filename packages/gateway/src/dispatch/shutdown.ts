import { ApiError } from "../request/errors.ts";

/**
 * The end of the shutdown grace period, as seen by the dispatchers: when `cutNow()` is called, every request still in
 * flight is ended (a stream with an error event and [DONE], a request not yet answered with 503) and counted.
 */
export class ShutdownSignal {
  /** What to run to cut each request in flight (a Set: cheaper per request than AbortSignal listeners). */
  readonly #inFlight = new Set<() => void>();
  #cutting = false;
  #cut = 0;

  /** Requests that were cut. */
  get cut(): number {
    return this.#cut;
  }

  countCut(): void {
    this.#cut++;
  }

  cutNow(): void {
    this.#cutting = true;
    for (const cut of [...this.#inFlight]) cut();
  }

  /**
   * A request starts: `cut` runs if the grace period ends before it calls `leave(cut)` (at once if it already has).
   * Two calls rather than a wrapper around the request's promise: that cost a promise reaction per request.
   */
  enter(cut: () => void): void {
    if (this.#cutting) cut();
    else this.#inFlight.add(cut);
  }

  /** The request entered with `cut` settled: nothing left to cut. */
  leave(cut: () => void): void {
    this.#inFlight.delete(cut);
  }
}

export const SHUTTING_DOWN_MESSAGE = "The gateway is shutting down; retry the request";

export const shuttingDown = () => new ApiError(503, SHUTTING_DOWN_MESSAGE, "service_unavailable", "shutting_down");
