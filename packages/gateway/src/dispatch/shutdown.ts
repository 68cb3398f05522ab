import { ApiError } from "../request/errors.ts";

/** A request as the shutdown signal keeps it: what cuts it, and its neighbours among the requests in flight. */
export interface Cuttable {
  cut(): void;
  olderInFlight: Cuttable | undefined;
  newerInFlight: Cuttable | undefined;
}

/**
 * The end of the shutdown grace period, as seen by the dispatchers: when `cutNow()` is called, every request still in
 * flight is ended (a stream with an error event and [DONE], a request not yet answered with 503) and counted.
 *
 * The requests in flight are a list linked through the requests themselves, not a Set. A long-lived Set that gains
 * and loses an entry per request replaces its hash table every few dozen requests, and V8 links each replaced table
 * to the next: once one of those tables has reached the old generation (it stayed current through a quiet spell),
 * every table after it, and every request they hold, survived the young collections until the next full one. Under
 * load that promoted nearly all of each request's objects: 2-3 MB per young collection, each taking 8-14 ms instead
 * of about 1 (docs/benchmarks.md, "A Set that promoted every request").
 */
export class ShutdownSignal {
  #newest: Cuttable | undefined;
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
    const inFlight: Cuttable[] = [];
    for (let entry = this.#newest; entry !== undefined; entry = entry.olderInFlight) inFlight.push(entry);
    for (const entry of inFlight) entry.cut();
  }

  /**
   * A request starts: its `cut` runs if the grace period ends before it calls `leave` (at once if it already has).
   * Two calls rather than a wrapper around the request's promise: that cost a promise reaction per request.
   */
  enter(entry: Cuttable): void {
    if (this.#cutting) {
      entry.cut();
      return;
    }
    entry.olderInFlight = this.#newest;
    entry.newerInFlight = undefined;
    if (this.#newest !== undefined) this.#newest.newerInFlight = entry;
    this.#newest = entry;
  }

  /** The request settled: nothing left to cut. Its links are cleared, so that it holds no other request. */
  leave(entry: Cuttable): void {
    const { olderInFlight: older, newerInFlight: newer } = entry;
    if (newer === undefined && this.#newest !== entry) return;
    if (older !== undefined) older.newerInFlight = newer;
    if (newer !== undefined) newer.olderInFlight = older;
    else this.#newest = older;
    entry.olderInFlight = undefined;
    entry.newerInFlight = undefined;
  }
}

export const SHUTTING_DOWN_MESSAGE = "The gateway is shutting down; retry the request";

export const shuttingDown = () => new ApiError(503, SHUTTING_DOWN_MESSAGE, "service_unavailable", "shutting_down");
