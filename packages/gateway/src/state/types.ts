// The state store seam: the few things gateway replicas must share. Two implementations — embedded (one process,
// kept in a file) and Redis (N replicas act as one) — answer the same operations with the same semantics.

export type BudgetPeriod = "daily" | "monthly" | "total";

/** A key's limits; an absent one does not limit. */
interface KeyLimits {
  /** Requests per minute. */
  rpm?: number | undefined;
  /** Tokens per minute, counted from the usage of finished requests. */
  tpm?: number | undefined;
  /** Requests in flight at once. */
  maxConcurrent?: number | undefined;
  budgetUsd?: number | undefined;
  budgetPeriod: BudgetPeriod;
}

/** A virtual key as stored: never its secret, only the secret's SHA-256. */
export interface StoredKey extends KeyLimits {
  id: string;
  name: string;
  /** Hex SHA-256 of the secret. */
  hash: string;
  /** The first characters of the secret, to recognise it in a list ("sk-sb-Ab12…"). */
  hint: string;
  /** Models the key may use (names as clients send them); undefined: all. */
  models?: string[] | undefined;
  /** ISO time after which the key is refused. */
  expiresAt?: string | undefined;
  metadata?: Record<string, string | number | boolean | null> | undefined;
  createdAt: string;
  updatedAt: string;
}

/** A token bucket's state as OpenAI's x-ratelimit-* headers show it. */
export interface BucketView {
  limit: number;
  remaining: number;
  /** Until the bucket is full again. */
  resetMs: number;
}

export interface AdmitRequest {
  keyId: string;
  limits: KeyLimits;
  /** The spend period the key's budget is checked against (see spendPeriods). */
  budgetPeriodId: string;
  /** Names this request's concurrency slot; released by settle(). */
  leaseId: string;
  /** A slot not released within this time is reclaimed (a replica that died mid-request). */
  leaseTtlMs: number;
}

export type Refusal = "requests" | "tokens" | "concurrency" | "budget";

export interface AdmitResult {
  /** Undefined when admitted. */
  refused: Refusal | undefined;
  /** When refused: how long until a retry can succeed (budget: until the period ends, or unknown = 0). */
  retryAfterMs: number;
  requests: BucketView | undefined;
  tokens: BucketView | undefined;
  /** Spend in the budget period (before this request). */
  spendUsd: number;
}

export interface SettleRequest {
  keyId: string;
  leaseId: string;
  promptTokens: number;
  completionTokens: number;
  /** Charged to the tokens bucket when the key has one. */
  tpm: number | undefined;
  costUsd: number;
  /** Every spend period the cost counts in (day, month, total). */
  periodIds: readonly string[];
}

export interface KeyUsage {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** Spend per period id asked for, in the same order. */
  spendUsd: number[];
}

/** Short-lived records: stored responses (the Responses API), lifecycle operations. */
export type RecordKind = "response" | "operation";

export interface StateStore {
  readonly kind: "embedded" | "redis";
  /** Whether the store answers now (Redis: connected); limits fail open while it does not. */
  readonly up: boolean;
  /** Called on every change of `up`. */
  onAvailability(listener: (up: boolean) => void): void;

  putKey(key: StoredKey): Promise<void>;
  getKey(id: string): Promise<StoredKey | undefined>;
  keyByHash(hash: string): Promise<StoredKey | undefined>;
  listKeys(): Promise<StoredKey[]>;
  /** Removes the key, its usage and its windows; false when there was none. */
  deleteKey(id: string): Promise<boolean>;

  /** Checks budget, requests, tokens and concurrency at once, and takes a request and a slot when all allow it. */
  admit(request: AdmitRequest): Promise<AdmitResult>;
  /** Releases the slot and counts the request's usage, tokens and spend. */
  settle(request: SettleRequest): Promise<void>;
  keyUsage(keyId: string, periodIds: readonly string[]): Promise<KeyUsage>;

  /** Adds to a shared spend (the global budget: scope "global") in each period. */
  addSpend(scope: string, periodIds: readonly string[], usd: number): Promise<void>;
  readSpend(scope: string, periodIds: readonly string[]): Promise<number[]>;

  putRecord(kind: RecordKind, id: string, value: string, ttlSeconds: number): Promise<void>;
  getRecord(kind: RecordKind, id: string): Promise<string | undefined>;
  deleteRecord(kind: RecordKind, id: string): Promise<void>;

  /** Writes what is pending and disconnects. */
  close(): Promise<void>;
}
