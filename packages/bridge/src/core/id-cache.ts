// A bounded LRU per gateway: source message key -> the ids its copies got on each destination channel.
// Keys are namespaced by account ("<account> <id>"), so equal ids on two accounts never collide
// (Matterbridge keys by protocol: issue #1396). A reply to a copy finds its source through an index of the copies'
// ids (copy account -> copy id -> source key), kept with the entries: filled on insert and when a copy's id becomes
// known (confirm), emptied on eviction. So `canonical` costs two map lookups, not a scan of up to 5,000 entries per
// reply.
//
// Memory per remembered message (bench/soak/id-cache-bytes.ts): an entry is a map slot, keyed by a flat string,
// holding the caller's array of copies (hand it over sized to them: an array grown by push keeps room for 17); the
// map's order is the recency, so there is no wrapper object or clock per entry; the index is keyed by the copy's own
// id string, so there is no concatenated key per copy.

export interface CopyId {
  readonly account: string;
  readonly channel: string;
  /** The destination's id ("" while unknown). Set through `MessageIdCache.confirm`, which keeps the index. */
  readonly id: string;
  /** Set while the copy is still queued or being sent: resolves to its id ("" when it got none). */
  pending?: Promise<string> | undefined;
}

/**
 * "<account> <id>" as one flat string: join writes the characters out, where `${account} ${id}` makes a tree of
 * concatenations (for keys of 13 characters or more) that the cache would hold for as long as the entry lives: two
 * more strings, 56 bytes per key. Hashing the flat key for a lookup is cheaper too.
 */
export function cacheKey(account: string, id: string): string {
  return [account, id].join(" ");
}

/** Source messages remembered per gateway (and kept in the state file). */
export const DEFAULT_ID_CACHE_SIZE = 5000;

export class MessageIdCache {
  /** Source key -> its copies, least recently stored or read first (get and set move a key to the end). */
  readonly #entries = new Map<string, CopyId[]>();
  /** Copy account -> copy id -> the source key(s) with such a copy: almost always one; ids "" are not indexed. */
  readonly #sources = new Map<string, Map<string, string | string[]>>();

  constructor(readonly capacity = DEFAULT_ID_CACHE_SIZE) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The copies of a source message, refreshing its recency. */
  get(key: string): CopyId[] | undefined {
    const copies = this.#entries.get(key);
    if (copies === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, copies);
    return copies;
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** Stores the copies of a new source message, evicting the least recently used entry when full. */
  set(key: string, copies: CopyId[]): void {
    const previous = this.#entries.get(key);
    if (previous !== undefined) {
      this.#entries.delete(key);
      this.#unindex(key, previous);
    }
    this.#entries.set(key, copies);
    for (const copy of copies) if (copy.id !== "") this.#index(copy.account, copy.id, key);
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.entries().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest[0]);
      this.#unindex(oldest[0], oldest[1]);
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
    const copies = this.#entries.get(key);
    if (copies === undefined || !copies.includes(copy)) return;
    if (old !== "" && !copies.some((c) => c.account === copy.account && c.id === old)) {
      this.#remove(copy.account, old, key);
    }
    if (id !== "") this.#index(copy.account, id, key);
  }

  /**
   * The source key of a message given either its own key or the id of one of its copies (for replies to a copy);
   * undefined for an unknown message, or an empty id (a copy whose id is not known yet matches nothing).
   */
  canonical(account: string, id: string): string | undefined {
    const key = cacheKey(account, id);
    if (this.#entries.has(key)) return key;
    if (id === "") return undefined;
    const sources = this.#sources.get(account)?.get(id);
    if (sources === undefined || typeof sources === "string") return sources;
    return this.#leastRecent(sources);
  }

  /**
   * Of several sources whose copies got the same id (a destination that reuses ids), the least recently used, as
   * the scan of old found first. Only then does the cache walk its entries, oldest first.
   */
  #leastRecent(sources: readonly string[]): string | undefined {
    const wanted = new Set(sources);
    for (const key of this.#entries.keys()) if (wanted.has(key)) return key;
    return sources[0];
  }

  #index(account: string, id: string, source: string): void {
    let byId = this.#sources.get(account);
    if (byId === undefined) {
      byId = new Map();
      this.#sources.set(account, byId);
    }
    const sources = byId.get(id);
    if (sources === undefined) byId.set(id, source);
    else if (typeof sources === "string") {
      if (sources !== source) byId.set(id, [sources, source]);
    } else if (!sources.includes(source)) sources.push(source);
  }

  #unindex(source: string, copies: readonly CopyId[]): void {
    for (const copy of copies) if (copy.id !== "") this.#remove(copy.account, copy.id, source);
  }

  #remove(account: string, id: string, source: string): void {
    const byId = this.#sources.get(account);
    const sources = byId?.get(id);
    if (byId === undefined || sources === undefined) return;
    if (typeof sources === "string") {
      if (sources !== source) return;
      byId.delete(id);
      if (byId.size === 0) this.#sources.delete(account);
      return;
    }
    const at = sources.indexOf(source);
    if (at < 0) return;
    sources.splice(at, 1);
    if (sources.length === 1) byId.set(id, sources[0] as string);
  }

  /** Copy keys indexed (for tests: the index holds nothing an entry no longer has). */
  get indexed(): number {
    let count = 0;
    for (const byId of this.#sources.values()) count += byId.size;
    return count;
  }
}
