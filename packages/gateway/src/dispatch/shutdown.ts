import { type LiveEntry, LiveList } from "@switchboard/common";
import { ApiError } from "../request/errors.ts";

/**
 * The end of the shutdown grace period, as seen by the dispatchers: when `cutNow()` is called, every request still in
 * flight is ended (a stream with an error event and [DONE], a request not yet answered with 503) and counted. The
 * requests in flight are a LiveList: a Set here promoted nearly every request's objects (see live-list.ts).
 */
export class ShutdownSignal {
  readonly #inFlight = new LiveList<() => void>();
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
    for (const cut of this.#inFlight.values()) cut();
  }

  /**
   * A request starts: `cut` runs if the grace period ends before it calls `leave` with the entry returned (at once,
   * and undefined is returned, if it already has). Two calls rather than a wrapper around the request's promise: that
   * cost a promise reaction per request.
   */
  enter(cut: () => void): InFlightEntry | undefined {
    if (!this.#cutting) return this.#inFlight.add(cut);
    cut();
    return undefined;
  }

  /** The request settled: nothing left to cut. */
  leave(entry: InFlightEntry | undefined): void {
    if (entry !== undefined) this.#inFlight.remove(entry);
  }
}

export type InFlightEntry = LiveEntry<() => void>;

export const SHUTTING_DOWN_MESSAGE = "The gateway is shutting down; retry the request";

export const shuttingDown = () => new ApiError(503, SHUTTING_DOWN_MESSAGE, "service_unavailable", "shutting_down");
