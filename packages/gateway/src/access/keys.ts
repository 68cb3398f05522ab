import { periodIdOf, spendPeriodIds } from "../state/periods.ts";
import type { StateStore, StoredKey } from "../state/types.ts";
import type { KeyFields } from "./key-body.ts";
import { KeyCache } from "./key-cache.ts";
import { hashSecret, hintOf, newKeyId, newSecret, secretMatches } from "./secret.ts";

/** What verifying a presented secret found. */
export type Verification =
  | { kind: "key"; key: StoredKey }
  | { kind: "unknown" }
  /** The store could not answer and this replica has not seen the key. */
  | { kind: "unavailable" };

/** Virtual keys: made, listed, changed and revoked through the store; verified through a short cache. */
export class KeyService {
  readonly #cache: KeyCache;

  constructor(
    private readonly store: StateStore,
    now: () => number = Date.now,
  ) {
    this.#cache = new KeyCache(now);
  }

  /** A new key; the secret is in the answer only, never stored. */
  async create(fields: KeyFields): Promise<{ key: StoredKey; secret: string }> {
    const secret = newSecret();
    const now = new Date().toISOString();
    const key: StoredKey = applyFields(
      {
        id: newKeyId(),
        name: "",
        hash: hashSecret(secret),
        hint: hintOf(secret),
        budgetPeriod: "monthly",
        createdAt: now,
        updatedAt: now,
      },
      fields,
    );
    await this.store.putKey(key);
    return { key, secret };
  }

  list(): Promise<StoredKey[]> {
    return this.store.listKeys();
  }

  get(id: string): Promise<StoredKey | undefined> {
    return this.store.getKey(id);
  }

  async update(id: string, fields: KeyFields): Promise<StoredKey | undefined> {
    const existing = await this.store.getKey(id);
    if (!existing) return undefined;
    const key = applyFields({ ...existing, updatedAt: new Date().toISOString() }, fields);
    await this.store.putKey(key);
    this.#cache.forget(key.hash);
    return key;
  }

  async revoke(id: string): Promise<boolean> {
    const existing = await this.store.getKey(id);
    if (!existing) return false;
    this.#cache.forget(existing.hash);
    return this.store.deleteKey(id);
  }

  /** The key a secret belongs to. Other replicas' revocations and changes are seen within FRESH_MS. */
  async verify(secret: string): Promise<Verification> {
    const hash = hashSecret(secret);
    const cached = this.#cache.fresh(hash);
    if (cached) return cached.key ? { kind: "key", key: cached.key } : { kind: "unknown" };
    let key: StoredKey | undefined;
    try {
      key = await this.store.keyByHash(hash);
    } catch {
      const remembered = this.#cache.remembered(hash);
      return remembered ? { kind: "key", key: remembered } : { kind: "unavailable" };
    }
    // The store found it by hash; the constant-time comparison is the check that counts.
    if (key && !secretMatches(secret, key.hash)) key = undefined;
    this.#cache.set(hash, key);
    return key ? { kind: "key", key } : { kind: "unknown" };
  }

  /** A key as the admin API shows it: everything but the secret, with its usage. */
  async view(key: StoredKey, at = new Date()): Promise<Record<string, unknown>> {
    const usage = await this.store.keyUsage(key.id, [periodIdOf(key.budgetPeriod, at)]);
    return {
      id: key.id,
      object: "api_key",
      name: key.name,
      hint: key.hint,
      models: key.models ?? null,
      rpm: key.rpm ?? null,
      tpm: key.tpm ?? null,
      max_concurrent: key.maxConcurrent ?? null,
      budget_usd: key.budgetUsd ?? null,
      budget_period: key.budgetPeriod,
      spend_usd: Math.round((usage.spendUsd[0] ?? 0) * 1e6) / 1e6,
      requests: usage.requests,
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      tokens: usage.promptTokens + usage.completionTokens,
      expires_at: key.expiresAt ?? null,
      metadata: key.metadata ?? null,
      created_at: key.createdAt,
      updated_at: key.updatedAt,
    };
  }

  /** Every key's spend in its budget period, for /metrics. */
  async spendByName(at = new Date()): Promise<{ name: string; usd: number }[]> {
    const keys = await this.store.listKeys();
    return Promise.all(
      keys.map(async (key) => ({
        name: key.name,
        usd: (await this.store.readSpend(`key:${key.id}`, [periodIdOf(key.budgetPeriod, at)]))[0] ?? 0,
      })),
    );
  }
}

/** The day, month and lifetime periods a request's cost counts in. */
export function costPeriods(at: Date): string[] {
  const ids = spendPeriodIds(at);
  return [ids.day, ids.month, ids.total];
}

/** The key with the fields given set (null: removed). */
function applyFields(key: StoredKey, fields: KeyFields): StoredKey {
  const next: StoredKey = { ...key };
  if (fields.name !== undefined) next.name = fields.name;
  if (fields.budget_period !== undefined) next.budgetPeriod = fields.budget_period;
  const set = <K extends keyof StoredKey>(name: K, value: StoredKey[K] | null | undefined) => {
    if (value === undefined) return;
    if (value === null) delete next[name];
    else next[name] = value;
  };
  set("models", fields.models);
  set("rpm", fields.rpm);
  set("tpm", fields.tpm);
  set("maxConcurrent", fields.max_concurrent);
  set("budgetUsd", fields.budget_usd);
  set("expiresAt", fields.expires_at);
  set("metadata", fields.metadata);
  return next;
}
