/**
 * A timeout that activity pushes back by moving a number, not the timer. The timer, armed once, wakes at the time it
 * was armed for and sleeps again for whatever is left; only a deadline moved earlier than that re-arms it. Refreshing
 * a Node timer on every request and body chunk (unlinking and relinking it in the timer lists, reading the loop's
 * clock) was a visible part of a proxied request's CPU; moving a deadline is one clock reading.
 */
export class Deadline {
  /** performance.now() at which it expires; 0 while stopped. */
  #at = 0;
  #timer: NodeJS.Timeout | undefined;
  /** When the armed timer wakes. */
  #wakeAt = 0;

  /** `expired` runs when a deadline set is reached without being set again or stopped. */
  constructor(private readonly expired: () => void) {}

  /** Expires `ms` from now, unless set again or stopped before. */
  set(ms: number): void {
    const now = performance.now();
    this.#at = now + ms;
    if (this.#timer !== undefined && this.#wakeAt <= this.#at) return;
    clearTimeout(this.#timer);
    this.#arm(ms, now);
  }

  /** No deadline until the next `set` (an armed timer lapses when it wakes). */
  stop(): void {
    this.#at = 0;
  }

  /** Stops it and clears its timer (the connection is gone). */
  dispose(): void {
    this.#at = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number, now: number): void {
    this.#wakeAt = now + ms;
    // Like the timers it replaces: a deadline does not keep the process alive.
    this.#timer = setTimeout(this.#wake, ms).unref();
  }

  readonly #wake = (): void => {
    this.#timer = undefined;
    if (this.#at === 0) return;
    const now = performance.now();
    const left = this.#at - now;
    if (left > 0) {
      this.#arm(left, now);
      return;
    }
    this.#at = 0;
    this.expired();
  };
}
