// A bounded LRU per gateway: source message key -> the ids its copies got on each destination channel.
// Keys are namespaced by account ("<account> <id>"), so equal ids on two accounts never collide
// (Matterbridge keys by protocol: issue #1396).

export interface CopyId {
  account: string;
  channel: string;
  /** The destination's id ("" while unknown). */
  id: string;
  /** Set while the copy is still queued or being sent: resolves to its id ("" when it got none). */
  pending?: Promise<string>;
}

export function cacheKey(account: string, id: string): string {
  return `${account} ${id}`;
}

/** Source messages remembered per gateway (and kept in the state file). */
export const DEFAULT_ID_CACHE_SIZE = 5000;

export class MessageIdCache {
  readonly #entries = new Map<string, CopyId[]>();

  constructor(readonly capacity = DEFAULT_ID_CACHE_SIZE) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The copies of a source message, refreshing its recency. */
  get(key: string): CopyId[] | undefined {
    const copies = this.#entries.get(key);
    if (copies !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, copies);
    }
    return copies;
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** Stores the copies of a new source message, evicting the least recently used entry when full. */
  set(key: string, copies: CopyId[]): void {
    this.#entries.delete(key);
    this.#entries.set(key, copies);
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  /** The source key of a message given either its own key or the id of one of its copies (for replies to a copy). */
  canonical(account: string, id: string): string | undefined {
    const key = cacheKey(account, id);
    if (this.#entries.has(key)) return key;
    for (const [source, copies] of this.#entries) {
      if (copies.some((copy) => copy.account === account && copy.id === id)) return source;
    }
    return undefined;
  }
}
