/**
 * At most `capacity` entries by key, in order of last use; taking one more evicts the entry used least recently,
 * handed to `evicted` (which folds it into an "other" total: per-key telemetry under a churn of short-lived keys).
 */
export class RecentlyUsed<V> {
  /** Least recent first: a Map keeps insertion order, and a used entry is moved to the end. */
  readonly #entries = new Map<string, V>();

  constructor(
    readonly capacity: number,
    private readonly evicted: (key: string, value: V) => void,
  ) {}

  /** The entry of `key`, made the most recent; created with `create` when there is none. */
  use(key: string, create: () => V): V {
    const known = this.#entries.get(key);
    if (known !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, known);
      return known;
    }
    if (this.#entries.size >= this.capacity) {
      const [oldest, value] = this.#entries.entries().next().value as [string, V];
      this.#entries.delete(oldest);
      this.evicted(oldest, value);
    }
    const value = create();
    this.#entries.set(key, value);
    return value;
  }

  /** Least recent first. */
  entries(): IterableIterator<[string, V]> {
    return this.#entries.entries();
  }

  clear(): void {
    this.#entries.clear();
  }
}
