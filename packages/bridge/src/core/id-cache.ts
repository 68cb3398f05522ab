// A bounded LRU per gateway: source message key -> the ids its copies got on each destination channel.
// Keys are namespaced by account ("<account> <id>"), so equal ids on two accounts never collide
// (Matterbridge keys by protocol: issue #1396). A reply to a copy finds its source through an index of the copies'
// ids (copy key -> source key), kept with the entries: filled on insert and when a copy's id becomes known (confirm),
// emptied on eviction. So `canonical` costs one map lookup, not a scan of up to 5,000 entries per reply.

export interface CopyId {
  readonly account: string;
  readonly channel: string;
  /** The destination's id ("" while unknown). Set through `MessageIdCache.confirm`, which keeps the index. */
  readonly id: string;
  /** Set while the copy is still queued or being sent: resolves to its id ("" when it got none). */
  pending?: Promise<string> | undefined;
}

export function cacheKey(account: string, id: string): string {
  return `${account} ${id}`;
}

/** Source messages remembered per gateway (and kept in the state file). */
export const DEFAULT_ID_CACHE_SIZE = 5000;

interface Entry {
  copies: CopyId[];
  /** When it was last stored or read: the least recent of two sources sharing a copy id wins, as a scan would find. */
  used: number;
}

export class MessageIdCache {
  readonly #entries = new Map<string, Entry>();
  /** Copy key ("<account> <id>") -> the source key(s) with such a copy: almost always one; ids "" are not indexed. */
  readonly #sources = new Map<string, string | string[]>();
  #clock = 0;

  constructor(readonly capacity = DEFAULT_ID_CACHE_SIZE) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The copies of a source message, refreshing its recency. */
  get(key: string): CopyId[] | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    entry.used = ++this.#clock;
    return entry.copies;
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** Stores the copies of a new source message, evicting the least recently used entry when full. */
  set(key: string, copies: CopyId[]): void {
    const previous = this.#entries.get(key);
    if (previous !== undefined) {
      this.#entries.delete(key);
      this.#unindex(key, previous.copies);
    }
    this.#entries.set(key, { copies, used: ++this.#clock });
    for (const copy of copies) if (copy.id !== "") this.#index(cacheKey(copy.account, copy.id), key);
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.entries().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest[0]);
      this.#unindex(oldest[0], oldest[1].copies);
    }
  }

  /**
   * A copy's destination confirmed it with `id`: the copy (of the source `key`, undefined for a copy the cache does
   * not hold, such as an edit's) gets it, and replies to it find their source from now on. Does not refresh recency.
   */
  confirm(key: string | undefined, copy: CopyId, id: string): void {
    const old = copy.id;
    const writable = copy as { id: string; pending?: Promise<string> | undefined };
    writable.id = id;
    writable.pending = undefined;
    if (key === undefined || old === id) return;
    const entry = this.#entries.get(key);
    if (entry === undefined || !entry.copies.includes(copy)) return;
    if (old !== "" && !entry.copies.some((c) => c.account === copy.account && c.id === old)) {
      this.#remove(cacheKey(copy.account, old), key);
    }
    if (id !== "") this.#index(cacheKey(copy.account, id), key);
  }

  /**
   * The source key of a message given either its own key or the id of one of its copies (for replies to a copy);
   * undefined for an unknown message, or an empty id (a copy whose id is not known yet matches nothing).
   */
  canonical(account: string, id: string): string | undefined {
    const key = cacheKey(account, id);
    if (this.#entries.has(key)) return key;
    if (id === "") return undefined;
    const sources = this.#sources.get(key);
    if (sources === undefined || typeof sources === "string") return sources;
    let oldest = sources[0];
    let oldestUse = Number.POSITIVE_INFINITY;
    for (const source of sources) {
      const used = this.#entries.get(source)?.used ?? Number.POSITIVE_INFINITY;
      if (used < oldestUse) {
        oldest = source;
        oldestUse = used;
      }
    }
    return oldest;
  }

  #index(copyKey: string, source: string): void {
    const sources = this.#sources.get(copyKey);
    if (sources === undefined) this.#sources.set(copyKey, source);
    else if (typeof sources === "string") {
      if (sources !== source) this.#sources.set(copyKey, [sources, source]);
    } else if (!sources.includes(source)) sources.push(source);
  }

  #unindex(source: string, copies: readonly CopyId[]): void {
    for (const copy of copies) if (copy.id !== "") this.#remove(cacheKey(copy.account, copy.id), source);
  }

  #remove(copyKey: string, source: string): void {
    const sources = this.#sources.get(copyKey);
    if (sources === undefined) return;
    if (typeof sources === "string") {
      if (sources === source) this.#sources.delete(copyKey);
      return;
    }
    const at = sources.indexOf(source);
    if (at < 0) return;
    sources.splice(at, 1);
    if (sources.length === 1) this.#sources.set(copyKey, sources[0] as string);
  }

  /** Copy keys indexed (for tests: the index holds nothing an entry no longer has). */
  get indexed(): number {
    return this.#sources.size;
  }
}
