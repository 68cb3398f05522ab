import type { StoredKey } from "../state/types.ts";

/** A verified key is trusted without asking the store again for this long: revocation reaches every replica within it. */
const FRESH_MS = 500;
/** While the store is down, keys verified within this long still work (fail open for keys this replica has seen). */
const REMEMBERED_MS = 24 * 3_600_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  key: StoredKey | undefined;
  verifiedAt: number;
}

/** Key hash → what the store said of it, and when. Unknown hashes are remembered too (briefly), so floods of bad keys cost one lookup each per FRESH_MS. */
export class KeyCache {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A fresh answer; undefined when the store must be asked. */
  fresh(hash: string): Entry | undefined {
    const entry = this.#entries.get(hash);
    return entry && this.now() - entry.verifiedAt < FRESH_MS ? entry : undefined;
  }

  /** A key seen before, however stale, for when the store cannot answer. */
  remembered(hash: string): StoredKey | undefined {
    const entry = this.#entries.get(hash);
    return entry?.key && this.now() - entry.verifiedAt < REMEMBERED_MS ? entry.key : undefined;
  }

  set(hash: string, key: StoredKey | undefined): void {
    if (this.#entries.size >= MAX_ENTRIES && !this.#entries.has(hash)) {
      // Unknown hashes go first: they are the ones a flood of bad keys adds.
      for (const [stale, entry] of this.#entries) {
        if (!entry.key || this.#entries.size >= MAX_ENTRIES) this.#entries.delete(stale);
        if (this.#entries.size < MAX_ENTRIES * 0.9) break;
      }
    }
    this.#entries.set(hash, { key, verifiedAt: this.now() });
  }

  forget(hash: string): void {
    this.#entries.delete(hash);
  }
}
