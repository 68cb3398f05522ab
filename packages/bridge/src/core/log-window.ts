// At most one log line per window for a kind of trouble that may come in floods (unreadable events, refused
// uploads, state file writes that fail): the first of a window is logged, the rest are counted, and the next line
// says how many went quietly.

/** At most one line per this many milliseconds, per account (or state file) and kind. */
const LOG_WINDOW_MS = 60_000;

export class LogWindow {
  readonly #now: () => number;
  #lastLogAt = Number.NEGATIVE_INFINITY;
  #quiet = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /**
   * Called once per occurrence: the number of occurrences not logged since the last line when this one is to be
   * logged, or undefined when it is to be counted quietly.
   */
  due(): number | undefined {
    const now = this.#now();
    if (now - this.#lastLogAt < LOG_WINDOW_MS) {
      this.#quiet++;
      return undefined;
    }
    const quiet = this.#quiet;
    this.#lastLogAt = now;
    this.#quiet = 0;
    return quiet;
  }
}
