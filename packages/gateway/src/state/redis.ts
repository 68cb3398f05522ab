import { Redis } from "ioredis";
import { viewOf, WINDOW_MS } from "./bucket.ts";
import { retentionSecondsOf } from "./periods.ts";
import { ADMIT, SETTLE } from "./redis-scripts.ts";
import type {
  AdmitRequest,
  AdmitResult,
  BucketView,
  KeyUsage,
  RecordKind,
  Refusal,
  SettleRequest,
  StateStore,
  StoredKey,
} from "./types.ts";

type Argument = string | number;

/** ioredis with the two scripts defined on it (EVALSHA, falling back to EVAL once per connection). */
interface ScriptedRedis extends Redis {
  switchboardAdmit(...args: Argument[]): Promise<string[]>;
  switchboardSettle(...args: Argument[]): Promise<number>;
}

export interface RedisStoreOptions {
  url: string;
  keyPrefix: string;
  /** How long start() waits for the first connection before starting without it (limits fail open). */
  connectTimeoutMs?: number;
}

/**
 * The store of replicas that act as one: every limit is one Lua script on the shared Redis (redis-scripts.ts).
 * Commands fail at once while Redis is away (no offline queue: a request never waits on a dead connection); ioredis
 * reconnects by itself with backoff, and `up` follows the connection.
 */
export class RedisStore implements StateStore {
  readonly kind = "redis";
  readonly #redis: ScriptedRedis;
  readonly #listeners: ((up: boolean) => void)[] = [];
  #up = false;

  constructor(options: RedisStoreOptions) {
    const redis = new Redis(options.url, {
      keyPrefix: options.keyPrefix,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 1_000,
      connectTimeout: options.connectTimeoutMs ?? 2_000,
      retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
    });
    redis.defineCommand("switchboardAdmit", { numberOfKeys: 4, lua: ADMIT });
    redis.defineCommand("switchboardSettle", { lua: SETTLE });
    // Without a listener an unreachable Redis would be an uncaught 'error'; `up` and its listeners report it.
    redis.on("error", () => {});
    redis.on("ready", () => this.#set(true));
    redis.on("close", () => this.#set(false));
    this.#redis = redis as ScriptedRedis;
  }

  /**
   * Connects; resolves once the first attempt has connected or failed (refused at once, or after connectTimeout), at
   * the latest after `timeoutMs`. A store that could not connect starts down and keeps trying in the background: a
   * Redis that is away no longer holds the gateway's start for the whole timeout.
   */
  async start(timeoutMs = 5_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([this.#redis.connect().catch(() => {}), timeout]);
    clearTimeout(timer);
  }

  get up(): boolean {
    return this.#up;
  }

  onAvailability(listener: (up: boolean) => void): void {
    this.#listeners.push(listener);
  }

  async putKey(key: StoredKey): Promise<void> {
    const previous = await this.getKey(key.id);
    const transaction = this.#redis.multi();
    if (previous && previous.hash !== key.hash) transaction.del(`keyhash:${previous.hash}`);
    transaction.set(`key:${key.id}`, JSON.stringify(key)).set(`keyhash:${key.hash}`, key.id).sadd("keys", key.id);
    await transaction.exec();
  }

  async getKey(id: string): Promise<StoredKey | undefined> {
    return parseKey(await this.#redis.get(`key:${id}`));
  }

  async keyByHash(hash: string): Promise<StoredKey | undefined> {
    const id = await this.#redis.get(`keyhash:${hash}`);
    if (id === null) return undefined;
    const key = await this.getKey(id);
    return key?.hash === hash ? key : undefined;
  }

  async listKeys(): Promise<StoredKey[]> {
    const ids = await this.#redis.smembers("keys");
    if (ids.length === 0) return [];
    const records = await this.#redis.mget(ids.map((id) => `key:${id}`));
    return records.map(parseKey).filter((key): key is StoredKey => key !== undefined);
  }

  async deleteKey(id: string): Promise<boolean> {
    const key = await this.getKey(id);
    if (!key) return false;
    await this.#redis
      .multi()
      .del(`key:${id}`, `keyhash:${key.hash}`, `usage:${id}`, `rl:${id}:rpm`, `rl:${id}:tpm`, `slots:${id}`)
      .del(`spend:key:${id}:total`)
      .srem("keys", id)
      .exec();
    return true;
  }

  async admit(request: AdmitRequest): Promise<AdmitResult> {
    const { keyId, limits } = request;
    const [refusal, retry, requestsBacklog, tokensBacklog, spend] = await this.#redis.switchboardAdmit(
      `rl:${keyId}:rpm`,
      `rl:${keyId}:tpm`,
      `slots:${keyId}`,
      `spend:key:${keyId}:${request.budgetPeriodId}`,
      limits.rpm ?? 0,
      limits.tpm ?? 0,
      limits.maxConcurrent ?? 0,
      request.leaseId,
      request.leaseTtlMs,
      limits.budgetUsd ?? "",
      WINDOW_MS,
    );
    return {
      refused: refusal ? (refusal as Refusal) : undefined,
      retryAfterMs: Number(retry),
      requests: bucketView(requestsBacklog, limits.rpm),
      tokens: bucketView(tokensBacklog, limits.tpm),
      spendUsd: Number(spend) || 0,
    };
  }

  async settle(request: SettleRequest): Promise<void> {
    const { keyId, periodIds } = request;
    await this.#redis.switchboardSettle(
      4 + periodIds.length,
      `rl:${keyId}:tpm`,
      `slots:${keyId}`,
      `usage:${keyId}`,
      `key:${keyId}`,
      ...periodIds.map((id) => `spend:key:${keyId}:${id}`),
      request.leaseId,
      request.tpm ?? 0,
      request.promptTokens + request.completionTokens,
      request.promptTokens,
      request.completionTokens,
      Number.isFinite(request.costUsd) && request.costUsd > 0 ? request.costUsd : 0,
      WINDOW_MS,
      ...periodIds.map((id) => retentionSecondsOf(id) ?? 0),
    );
  }

  async keyUsage(keyId: string, periodIds: readonly string[]): Promise<KeyUsage> {
    const [usage, spend] = await Promise.all([
      this.#redis.hgetall(`usage:${keyId}`),
      this.readSpend(`key:${keyId}`, periodIds),
    ]);
    return {
      requests: Number(usage["requests"] ?? 0),
      promptTokens: Number(usage["prompt_tokens"] ?? 0),
      completionTokens: Number(usage["completion_tokens"] ?? 0),
      spendUsd: spend,
    };
  }

  async addSpend(scope: string, periodIds: readonly string[], usd: number): Promise<void> {
    if (!(usd > 0) || !Number.isFinite(usd)) return;
    const pipeline = this.#redis.pipeline();
    for (const id of periodIds) {
      pipeline.incrbyfloat(`spend:${scope}:${id}`, usd);
      const keep = retentionSecondsOf(id);
      if (keep !== undefined) pipeline.expire(`spend:${scope}:${id}`, keep);
    }
    await pipeline.exec();
  }

  async readSpend(scope: string, periodIds: readonly string[]): Promise<number[]> {
    if (periodIds.length === 0) return [];
    const values = await this.#redis.mget(periodIds.map((id) => `spend:${scope}:${id}`));
    return values.map((value) => Number(value ?? 0) || 0);
  }

  async putRecord(kind: RecordKind, id: string, value: string, ttlSeconds: number): Promise<void> {
    await this.#redis.set(`rec:${kind}:${id}`, value, "EX", Math.max(1, Math.ceil(ttlSeconds)));
  }

  async getRecord(kind: RecordKind, id: string): Promise<string | undefined> {
    return (await this.#redis.get(`rec:${kind}:${id}`)) ?? undefined;
  }

  async deleteRecord(kind: RecordKind, id: string): Promise<void> {
    await this.#redis.del(`rec:${kind}:${id}`);
  }

  async close(): Promise<void> {
    this.#listeners.length = 0;
    try {
      await this.#redis.quit();
    } catch {
      this.#redis.disconnect();
    }
  }

  #set(up: boolean): void {
    if (this.#up === up) return;
    this.#up = up;
    for (const listener of this.#listeners) listener(up);
  }
}

function parseKey(text: string | null): StoredKey | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as StoredKey;
  } catch {
    return undefined;
  }
}

function bucketView(backlog: string | undefined, limit: number | undefined): BucketView | undefined {
  if (!limit || backlog === undefined || backlog === "") return undefined;
  return viewOf(Number(backlog), limit, WINDOW_MS / limit);
}
