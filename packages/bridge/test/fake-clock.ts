// A manual clock for the core's timers: tests advance time and the due timers fire in order, so reconnect backoff,
// pacing and rate-limit waits are checked without real waiting.
import type { Clock, TimerHandle } from "../src/core/clock.ts";

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
}

/** Lets promise callbacks and the tasks they queue run (in-memory code only; no real time passes). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export class FakeClock implements Clock {
  #now = 0;
  #seq = 0;
  readonly #timers = new Map<number, Timer>();

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const seq = ++this.#seq;
    this.#timers.set(seq, { at: this.#now + Math.max(0, ms), seq, callback });
    return seq;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  /** Delays (from now) of the timers not yet fired, soonest first. */
  get pending(): number[] {
    return [...this.#timers.values()].map((t) => t.at - this.#now).sort((a, b) => a - b);
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order, and settling after each. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    await settle();
    for (;;) {
      const next = [...this.#timers.values()]
        .filter((t) => t.at <= end)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (next === undefined) break;
      this.#timers.delete(next.seq);
      this.#now = next.at;
      next.callback();
      await settle();
    }
    this.#now = end;
    await settle();
  }

  /** Fires the soonest timer whatever its delay; returns that delay (undefined when none is pending). */
  async fireNext(): Promise<number | undefined> {
    const delay = this.pending[0];
    if (delay === undefined) return undefined;
    await this.advance(delay);
    return delay;
  }
}
