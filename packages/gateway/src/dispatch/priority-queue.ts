import type { Priority } from "../telemetry/events.ts";

/** A request waiting for a slot, as the queue sees it. */
export interface Waiting {
  readonly priority: Priority;
  /** Names of the backends whose freed slot this request can use (they passed every filter but capacity). */
  readonly eligible: ReadonlySet<string>;
  /**
   * Offered a slot: the request routes again and takes a slot synchronously. False keeps it queued (for instance the
   * backend turned unhealthy meanwhile).
   */
  offer(): boolean;
}

/**
 * The bounded wait for capacity: `high` before `normal`, FIFO within a priority. It never polls: a freed slot on a
 * backend is offered at once to the first request that backend can serve, so requests for other models never block
 * it (no head-of-line blocking). Insertion-ordered Sets give FIFO order and O(1) removal when a client leaves.
 */
export class PriorityQueue<W extends Waiting> {
  readonly #high = new Set<W>();
  readonly #normal = new Set<W>();

  constructor(readonly maxSize: number) {}

  get size(): number {
    return this.#high.size + this.#normal.size;
  }

  /** Requests that would be served before a new one of `priority`. */
  ahead(priority: Priority): number {
    return priority === "high" ? this.#high.size : this.size;
  }

  /** Adds a request at the back of its priority; false when the queue is full. */
  add(waiting: W): boolean {
    if (this.size >= this.maxSize) return false;
    (waiting.priority === "high" ? this.#high : this.#normal).add(waiting);
    return true;
  }

  /** Removes a request (expired, client gone); false when it was no longer queued. */
  remove(waiting: W): boolean {
    return this.#high.delete(waiting) || this.#normal.delete(waiting);
  }

  /**
   * A slot freed on `backend`: offers it to the first queued request that backend can serve, high priority first, and
   * again while the backend still has room.
   */
  slotFreed(backend: string, hasRoom: () => boolean): void {
    if (this.size === 0) return;
    for (const lane of [this.#high, this.#normal]) {
      for (const waiting of lane) {
        if (!hasRoom()) return;
        // Deleting the current entry while iterating a Set is safe: iteration continues with the next one.
        if (waiting.eligible.has(backend) && waiting.offer()) lane.delete(waiting);
      }
    }
  }

  /** Something besides a slot changed (a backend became healthy): every request is offered a chance, in order. */
  offerAll(): void {
    for (const lane of [this.#high, this.#normal]) {
      for (const waiting of lane) if (waiting.offer()) lane.delete(waiting);
    }
  }
}
