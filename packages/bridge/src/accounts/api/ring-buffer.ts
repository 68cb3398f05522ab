// A fixed-capacity ring that drops the oldest item when full. Its capacity never changes
// (Matterbridge's falls back to 10 after the first read).

export class RingBuffer<T> {
  readonly #items: (T | undefined)[];
  #head = 0;
  #size = 0;
  #dropped = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`ring capacity must be >= 1, got ${capacity}`);
    this.#items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** Total items dropped because the ring was full, over its whole life. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Appends; returns true when the oldest item had to be dropped to make room. */
  push(item: T): boolean {
    const tail = (this.#head + this.#size) % this.capacity;
    this.#items[tail] = item;
    if (this.#size < this.capacity) {
      this.#size++;
      return false;
    }
    this.#head = (this.#head + 1) % this.capacity;
    this.#dropped++;
    return true;
  }

  /** Everything held, oldest first, leaving the ring empty (same capacity). */
  drain(): T[] {
    const out = new Array<T>(this.#size);
    for (let i = 0; i < this.#size; i++) {
      const index = (this.#head + i) % this.capacity;
      out[i] = this.#items[index] as T;
      this.#items[index] = undefined;
    }
    this.#head = 0;
    this.#size = 0;
    return out;
  }
}
