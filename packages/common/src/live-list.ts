/** A value's place in a LiveList, which removes it. */
export interface LiveEntry<T> {
  readonly value: T;
  older: LiveEntry<T> | undefined;
  newer: LiveEntry<T> | undefined;
  listed: boolean;
}

/**
 * The values in flight of a long-lived collection that gains and loses one per request (the requests a shutdown may
 * have to cut, the answers it may have to close), as a doubly linked list rather than a Set.
 *
 * Why: a long-lived Set replaces its hash table every few dozen additions and removals, and V8 links each replaced
 * table to the next. Once one of those tables has reached the old generation (it stayed current through a quiet
 * spell, as at start-up), every table after it, and every value they held, outlives the young collections until the
 * next full one. Under the gateway's bench load that promoted nearly all of each request's objects: 2-3 MB per young
 * collection, each taking 8-14 ms instead of about 1 (docs/benchmarks.md, "A Set that promoted every request"). A
 * removed entry here keeps no link to any other.
 */
export class LiveList<T> {
  #newest: LiveEntry<T> | undefined;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(value: T): LiveEntry<T> {
    const entry: LiveEntry<T> = { value, older: this.#newest, newer: undefined, listed: true };
    if (this.#newest !== undefined) this.#newest.newer = entry;
    this.#newest = entry;
    this.#size++;
    return entry;
  }

  /** Takes the entry out (once; again, harmless) and clears its links. */
  remove(entry: LiveEntry<T>): void {
    if (!entry.listed) return;
    const { older, newer } = entry;
    if (older !== undefined) older.newer = newer;
    if (newer !== undefined) newer.older = older;
    else this.#newest = older;
    entry.older = undefined;
    entry.newer = undefined;
    entry.listed = false;
    this.#size--;
  }

  /** The values listed now, newest first (a copy: the caller may remove entries meanwhile). */
  values(): T[] {
    const values: T[] = [];
    for (let entry = this.#newest; entry !== undefined; entry = entry.older) values.push(entry.value);
    return values;
  }
}
