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
   * Runs `cut` if the grace period ends before `run` settles. Not an async function: every request waits here for as
   * long as it lasts (a stream, seconds to minutes), and a suspended async function keeps its whole frame.
   */
  guard<T>(run: () => Promise<T>, cut: () => void): Promise<T> {
    if (this.#cutting) cut();
    else this.#inFlight.add(cut);
    const leave = () => {
      this.#inFlight.delete(cut);
    };
    try {
      // Not finally(): it chains two more promises per request to pass the outcome through.
      return run().then(
        (outcome) => {
          leave();
          return outcome;
        },
        (error: unknown) => {
          leave();
          throw error;
        },
      );
    } catch (error) {
      leave();
      return Promise.reject(error);
    }
  }
}

export const SHUTTING_DOWN_MESSAGE = "The gateway is shutting down; retry the request";

export const shuttingDown = () => new ApiError(503, SHUTTING_DOWN_MESSAGE, "service_unavailable", "shutting_down");
