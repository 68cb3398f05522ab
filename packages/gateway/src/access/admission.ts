import { type ApiError, insufficientQuota, rateLimitExceeded } from "../request/errors.ts";
import { msUntilPeriodEnds, periodIdOf } from "../state/periods.ts";
import type { AdmitResult, BucketView, StateStore, StoredKey } from "../state/types.ts";
import { costPeriods } from "./keys.ts";

/** A request let through: settle() it once its answer is over. */
export interface Lease {
  key: StoredKey;
  leaseId: string;
}

export type Admission =
  | { admitted: true; lease: Lease; headers: Record<string, string> }
  | { admitted: false; error: ApiError; headers: Record<string, string> };

/** How long a request may hold a concurrency slot before it is taken back (a replica died mid-request). */
const DEFAULT_LEASE_TTL_MS = 15 * 60_000;

/**
 * A key's limits for one request: budget, requests and tokens per minute, requests in flight — decided by the store
 * in one step (atomic across replicas with Redis). When the store cannot answer, the request goes through (limits
 * fail open) and `onStoreError` says so.
 */
export class Limits {
  #sequence = 0;

  constructor(
    private readonly store: StateStore,
    private readonly onStoreError: (error: unknown) => void,
    private readonly leaseTtlMs = DEFAULT_LEASE_TTL_MS,
  ) {}

  async admit(key: StoredKey, at = new Date()): Promise<Admission> {
    const lease: Lease = {
      key,
      leaseId: `${process.pid}-${Date.now().toString(36)}-${(this.#sequence++).toString(36)}`,
    };
    let result: AdmitResult;
    try {
      result = await this.store.admit({
        keyId: key.id,
        limits: key,
        budgetPeriodId: periodIdOf(key.budgetPeriod, at),
        leaseId: lease.leaseId,
        leaseTtlMs: this.leaseTtlMs,
      });
    } catch (error) {
      this.onStoreError(error);
      return { admitted: true, lease, headers: {} };
    }
    const headers = rateLimitHeaders(result.requests, result.tokens);
    if (result.refused === undefined) return { admitted: true, lease, headers };
    return { admitted: false, error: refusalError(key, result), headers: withRetryAfter(headers, result, key, at) };
  }

  /** Releases the slot and counts the request's usage (tokens per minute from the real usage) and cost. */
  async settle(
    lease: Lease,
    usage: { promptTokens: number; completionTokens: number; costUsd: number },
    at = new Date(),
  ) {
    try {
      await this.store.settle({
        keyId: lease.key.id,
        leaseId: lease.leaseId,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        tpm: lease.key.tpm,
        costUsd: usage.costUsd,
        periodIds: costPeriods(at),
      });
    } catch (error) {
      this.onStoreError(error);
    }
  }
}

/** OpenAI's x-ratelimit-* headers for the buckets the key has. */
function rateLimitHeaders(requests: BucketView | undefined, tokens: BucketView | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (requests) {
    headers["x-ratelimit-limit-requests"] = String(requests.limit);
    headers["x-ratelimit-remaining-requests"] = String(requests.remaining);
    headers["x-ratelimit-reset-requests"] = formatDuration(requests.resetMs);
  }
  if (tokens) {
    headers["x-ratelimit-limit-tokens"] = String(tokens.limit);
    headers["x-ratelimit-remaining-tokens"] = String(tokens.remaining);
    headers["x-ratelimit-reset-tokens"] = formatDuration(tokens.resetMs);
  }
  return headers;
}

/** A duration as OpenAI writes it (Go's format): "250ms", "6s", "1m30s", "1.5s". */
function formatDuration(ms: number): string {
  const rounded = Math.max(0, Math.ceil(ms));
  if (rounded < 1000) return `${rounded}ms`;
  const minutes = Math.floor(rounded / 60_000);
  const seconds = (rounded % 60_000) / 1000;
  const secondsText = `${Number(seconds.toFixed(3))}s`;
  return minutes > 0 ? `${minutes}m${secondsText}` : secondsText;
}

function refusalError(key: StoredKey, result: AdmitResult): ApiError {
  const name = `key "${key.name}"`;
  switch (result.refused) {
    case "budget": {
      const resets =
        key.budgetPeriod === "total"
          ? "it does not reset"
          : `it resets with the ${key.budgetPeriod === "daily" ? "next UTC day" : "next UTC month"}`;
      return insufficientQuota(
        `The budget of ${name} is spent (${round(result.spendUsd)} of ${key.budgetUsd} USD, ${key.budgetPeriod}); ${resets}, or raise budget_usd`,
      );
    }
    case "tokens":
      return rateLimitExceeded(
        `Rate limit reached for ${name}: ${key.tpm} tokens per minute; retry after the Retry-After header's seconds`,
        "tokens",
      );
    case "concurrency":
      return rateLimitExceeded(
        `Rate limit reached for ${name}: ${key.maxConcurrent} requests in flight at once; retry when one finishes`,
        "requests",
      );
    default:
      return rateLimitExceeded(
        `Rate limit reached for ${name}: ${key.rpm} requests per minute; retry after the Retry-After header's seconds`,
        "requests",
      );
  }
}

function withRetryAfter(
  headers: Record<string, string>,
  result: AdmitResult,
  key: StoredKey,
  at: Date,
): Record<string, string> {
  const ms = result.refused === "budget" ? msUntilPeriodEnds(key.budgetPeriod, at) : result.retryAfterMs;
  if (ms <= 0) return headers;
  return { ...headers, "retry-after": String(Math.max(1, Math.ceil(ms / 1000))) };
}

function round(usd: number): number {
  return Math.round(usd * 1e4) / 1e4;
}
