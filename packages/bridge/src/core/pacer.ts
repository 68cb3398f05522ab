// MessageDelay: the minimum time between two messages an account sends, across all its channels (IRC servers count
// flood per connection, not per channel). Each send reserves the next free slot, so queues of several channels
// sending at once are spaced out rather than all firing when the same delay ends.
import type { Clock } from "./clock.ts";

export class Pacer {
  #next = Number.NEGATIVE_INFINITY;

  constructor(
    readonly intervalMs: number,
    readonly clock: Clock,
  ) {}

  /** Whether a send could go now without waiting (and without reserving anything). */
  ready(): boolean {
    return this.intervalMs <= 0 || this.clock.now() >= this.#next;
  }

  /** Reserves the next slot; returns how many ms to wait for it (0: send now). */
  reserve(): number {
    if (this.intervalMs <= 0) return 0;
    const now = this.clock.now();
    const slot = Math.max(now, this.#next);
    this.#next = slot + this.intervalMs;
    return slot - now;
  }
}
