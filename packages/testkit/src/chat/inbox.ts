/**
 * What a test user received, in order, with a bounded wait for the first item that matches. Items already received
 * count, so a wait started after the event still finds it.
 */
export class Inbox<T> {
  readonly items: T[] = [];
  #waiters = new Set<{ matches: (item: T) => boolean; resolve: (item: T) => void }>();

  push(item: T): void {
    this.items.push(item);
    for (const waiter of this.#waiters) {
      if (waiter.matches(item)) {
        this.#waiters.delete(waiter);
        waiter.resolve(item);
      }
    }
  }

  /**
   * Resolves with the first item (received or still to come) for which `matches` is true; rejects after timeoutMs.
   * `from` skips the items received before that index (pass `inbox.items.length` to wait only for new ones).
   */
  waitFor(matches: (item: T) => boolean, { timeoutMs = 10_000, what = "a matching item", from = 0 } = {}): Promise<T> {
    const seen = this.items.slice(from).find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        matches,
        resolve: (item: T) => {
          clearTimeout(timer);
          resolve(item);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        const recent = this.items.slice(-10).map((item) => JSON.stringify(item));
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last received:\n${recent.join("\n")}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  /** Forgets what was received (pending waits stay). */
  clear(): void {
    this.items.length = 0;
  }
}
