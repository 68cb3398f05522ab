import { type FileLock, lockFile, replaceRegularFile } from "@switchboard/common";
import { stepBucket } from "./bucket.ts";
import { type EmbeddedState, loadEmbeddedState, serialiseEmbeddedState } from "./embedded-file.ts";
import type { AdmitRequest, AdmitResult, KeyUsage, RecordKind, SettleRequest, StateStore, StoredKey } from "./types.ts";

const SHARING =
  'Give each gateway its own [state] path, or let replicas share one store with [state] backend = "redis"';

/** Usage is written at most this often (a write per request would cost more than the request). */
const USAGE_WRITE_DELAY_MS = 1_000;

export interface EmbeddedStoreOptions {
  /** A failed write is kept in memory and retried with the next change; this says so (once per failure streak). */
  onWriteError?: (error: unknown) => void;
  now?: () => number;
}

/**
 * The default store for one gateway: everything in memory, keys, usage, spend and records kept in one JSON file
 * (replaced atomically, see common/regular-file.ts) so that they survive a restart. Rate windows and concurrency slots are
 * per process, and so is the file: a second gateway on it is refused at start (common/file-lock.ts). Every operation completes synchronously; the promises are the seam's shape.
 */
export class EmbeddedStore implements StateStore {
  readonly kind = "embedded";
  readonly up = true;
  readonly #path: string;
  readonly #lock: FileLock;
  readonly #state: EmbeddedState;
  readonly #byHash = new Map<string, StoredKey>();
  readonly #buckets = new Map<string, number>();
  /** Key id → lease id → expiry (ms). */
  readonly #slots = new Map<string, Map<string, number>>();
  readonly #onWriteError: (error: unknown) => void;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #failing = false;

  /** Throws ConfigError when the file is corrupted, FileInUseError when another process has it. */
  constructor(path: string, options: EmbeddedStoreOptions = {}) {
    this.#path = path;
    this.#lock = lockFile(path, "state file", SHARING);
    try {
      this.#state = loadEmbeddedState(path);
    } catch (error) {
      this.#lock.release();
      throw error;
    }
    for (const key of this.#state.keys) this.#byHash.set(key.hash, key);
    this.#onWriteError = options.onWriteError ?? (() => {});
    this.#now = options.now ?? Date.now;
  }

  onAvailability(): void {
    // Always up.
  }

  async putKey(key: StoredKey): Promise<void> {
    const keys = this.#state.keys;
    const index = keys.findIndex((existing) => existing.id === key.id);
    if (index >= 0) {
      this.#byHash.delete(keys[index]!.hash);
      keys[index] = key;
    } else keys.push(key);
    this.#byHash.set(key.hash, key);
    this.#save(true);
  }

  async getKey(id: string): Promise<StoredKey | undefined> {
    return this.#state.keys.find((key) => key.id === id);
  }

  async keyByHash(hash: string): Promise<StoredKey | undefined> {
    return this.#byHash.get(hash);
  }

  async listKeys(): Promise<StoredKey[]> {
    return [...this.#state.keys];
  }

  async deleteKey(id: string): Promise<boolean> {
    const index = this.#state.keys.findIndex((key) => key.id === id);
    if (index < 0) return false;
    this.#byHash.delete(this.#state.keys[index]!.hash);
    this.#state.keys.splice(index, 1);
    delete this.#state.usage[id];
    delete this.#state.spend[`key:${id}`];
    this.#buckets.delete(`${id}:rpm`);
    this.#buckets.delete(`${id}:tpm`);
    this.#slots.delete(id);
    this.#save(true);
    return true;
  }

  async admit(request: AdmitRequest): Promise<AdmitResult> {
    const { keyId, limits } = request;
    const now = this.#now();
    const spendUsd = this.#state.spend[`key:${keyId}`]?.[request.budgetPeriodId] ?? 0;
    const refuse = (refused: AdmitResult["refused"], retryAfterMs: number, views: Partial<AdmitResult> = {}) => ({
      refused,
      retryAfterMs,
      requests: views.requests,
      tokens: views.tokens,
      spendUsd,
    });
    if (limits.budgetUsd !== undefined && spendUsd >= limits.budgetUsd) return refuse("budget", 0);
    const rpm = limits.rpm ? stepBucket(this.#buckets.get(`${keyId}:rpm`) ?? 0, now, limits.rpm, 1, 1) : undefined;
    const tpm = limits.tpm ? stepBucket(this.#buckets.get(`${keyId}:tpm`) ?? 0, now, limits.tpm, 1, 0) : undefined;
    const views = { requests: rpm?.view, tokens: tpm?.view };
    if (rpm && !rpm.allowed) return refuse("requests", rpm.retryAfterMs, views);
    if (tpm && !tpm.allowed) return refuse("tokens", tpm.retryAfterMs, views);
    if (limits.maxConcurrent !== undefined) {
      const leases = this.#leases(keyId, now);
      if (leases.size >= limits.maxConcurrent) return refuse("concurrency", 1_000, views);
      leases.set(request.leaseId, now + request.leaseTtlMs);
    }
    if (rpm) this.#buckets.set(`${keyId}:rpm`, rpm.tat);
    return { refused: undefined, retryAfterMs: 0, ...views, spendUsd };
  }

  async settle(request: SettleRequest): Promise<void> {
    const { keyId } = request;
    this.#slots.get(keyId)?.delete(request.leaseId);
    const tokens = request.promptTokens + request.completionTokens;
    if (request.tpm && tokens > 0) {
      const step = stepBucket(this.#buckets.get(`${keyId}:tpm`) ?? 0, this.#now(), request.tpm, 0, tokens, true);
      this.#buckets.set(`${keyId}:tpm`, step.tat);
    }
    if (!this.#state.keys.some((key) => key.id === keyId)) return; // revoked meanwhile
    const usage = this.#state.usage[keyId] ?? { requests: 0, promptTokens: 0, completionTokens: 0 };
    this.#state.usage[keyId] = usage;
    usage.requests += 1;
    usage.promptTokens += request.promptTokens;
    usage.completionTokens += request.completionTokens;
    this.#add(`key:${keyId}`, request.periodIds, request.costUsd);
    this.#save(false);
  }

  async keyUsage(keyId: string, periodIds: readonly string[]): Promise<KeyUsage> {
    const usage = this.#state.usage[keyId] ?? { requests: 0, promptTokens: 0, completionTokens: 0 };
    return { ...usage, spendUsd: await this.readSpend(`key:${keyId}`, periodIds) };
  }

  async addSpend(scope: string, periodIds: readonly string[], usd: number): Promise<void> {
    this.#add(scope, periodIds, usd);
    this.#save(false);
  }

  async readSpend(scope: string, periodIds: readonly string[]): Promise<number[]> {
    const spend = this.#state.spend[scope];
    return periodIds.map((id) => spend?.[id] ?? 0);
  }

  async putRecord(kind: RecordKind, id: string, value: string, ttlSeconds: number): Promise<void> {
    this.#state.records[`${kind}:${id}`] = { value, expiresAt: this.#now() + ttlSeconds * 1000 };
    this.#save(true);
  }

  async getRecord(kind: RecordKind, id: string): Promise<string | undefined> {
    const record = this.#state.records[`${kind}:${id}`];
    return record && record.expiresAt > this.#now() ? record.value : undefined;
  }

  async deleteRecord(kind: RecordKind, id: string): Promise<void> {
    delete this.#state.records[`${kind}:${id}`];
    this.#save(true);
  }

  async close(): Promise<void> {
    try {
      if (this.#timer === undefined && this.#immediate === undefined) return;
      clearTimeout(this.#timer);
      clearImmediate(this.#immediate);
      this.#timer = undefined;
      this.#immediate = undefined;
      this.#write();
    } finally {
      this.#lock.release();
    }
  }

  #add(scope: string, periodIds: readonly string[], usd: number): void {
    if (!(usd > 0) || !Number.isFinite(usd)) return;
    const spend = this.#state.spend[scope] ?? {};
    this.#state.spend[scope] = spend;
    for (const id of periodIds) spend[id] = (spend[id] ?? 0) + usd;
  }

  /** The key's live leases, expired ones dropped. */
  #leases(keyId: string, now: number): Map<string, number> {
    let leases = this.#slots.get(keyId);
    if (!leases) {
      leases = new Map();
      this.#slots.set(keyId, leases);
    }
    for (const [id, expiry] of leases) if (expiry <= now) leases.delete(id);
    return leases;
  }

  /** Key and record changes are written after this turn; usage within USAGE_WRITE_DELAY_MS. */
  #save(urgent: boolean): void {
    if (urgent) {
      if (this.#immediate) return;
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#immediate = setImmediate(() => {
        this.#immediate = undefined;
        this.#write();
      });
      return;
    }
    if (this.#timer || this.#immediate) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#write();
    }, USAGE_WRITE_DELAY_MS);
    this.#timer.unref();
  }

  #write(): void {
    const now = this.#now();
    for (const [id, record] of Object.entries(this.#state.records)) {
      if (record.expiresAt <= now) delete this.#state.records[id];
    }
    try {
      replaceRegularFile(this.#path, serialiseEmbeddedState(this.#state));
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) this.#onWriteError(error);
      this.#failing = true;
      this.#save(false);
    }
  }
}
