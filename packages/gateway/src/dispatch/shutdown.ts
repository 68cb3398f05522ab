import { ApiError } from "../http/errors.ts";

/**
 * The end of the shutdown grace period, as seen by the dispatchers: when `cutNow()` is called, every request still in
 * flight is ended (a stream with an error event and [DONE], a request not yet answered with 503) and counted.
 */
export class ShutdownSignal {
  readonly #controller = new AbortController();
  #cut = 0;

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Requests that were cut. */
  get cut(): number {
    return this.#cut;
  }

  countCut(): void {
    this.#cut++;
  }

  cutNow(): void {
    this.#controller.abort();
  }

  /** Runs `cut` if the grace period ends before `run` settles. */
  async guard<T>(run: () => Promise<T>, cut: () => void): Promise<T> {
    const signal = this.#controller.signal;
    const onAbort = () => cut();
    if (signal.aborted) cut();
    else signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await run();
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }
}

export const SHUTTING_DOWN_MESSAGE = "The gateway is shutting down; retry the request";

export const shuttingDown = () => new ApiError(503, SHUTTING_DOWN_MESSAGE, "service_unavailable", "shutting_down");
