/**
 * A backend's concurrency, owned in one place: the dispatch pipeline acquires a slot before an attempt and releases it
 * after, and nothing else changes the count. Listeners hear every release, so the queue can hand the freed slot to a
 * waiting request at once (no polling).
 */
export class ConcurrencySlots {
  #inFlight = 0;
  #onRelease: (() => void)[] = [];

  /** `limit` undefined: no limit (the backend's `max_concurrent` is not set). */
  constructor(readonly limit: number | undefined) {}

  get inFlight(): number {
    return this.#inFlight;
  }

  get hasRoom(): boolean {
    return this.limit === undefined || this.#inFlight < this.limit;
  }

  /** Takes a slot if one is free. */
  tryAcquire(): boolean {
    if (!this.hasRoom) return false;
    this.#inFlight++;
    return true;
  }

  release(): void {
    if (this.#inFlight === 0) throw new Error("released a slot that was not acquired");
    this.#inFlight--;
    for (const listener of this.#onRelease) listener();
  }

  /** Returns the function that stops listening. */
  onRelease(listener: () => void): () => void {
    this.#onRelease.push(listener);
    return () => {
      this.#onRelease = this.#onRelease.filter((entry) => entry !== listener);
    };
  }
}
