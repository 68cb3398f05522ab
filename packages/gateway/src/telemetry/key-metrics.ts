import type { Registry } from "prom-client";
import { RecentlyUsed } from "./recently-used.ts";

/** Key names with a series of their own; past this many, the least recently used is folded into OTHER_KEYS. */
const MAX_KEY_SERIES = 1_000;
/** Not a valid key name (names are letters, digits, space and _ . @ : / + -), so no key can share its series. */
export const OTHER_KEYS = "(other)";

/** One key's counters: requests by HTTP status, tokens by type (prompt, completion). */
interface KeyCounts {
  requests: Map<string, number>;
  tokens: Map<string, number>;
}

const noCounts = (): KeyCounts => ({ requests: new Map(), tokens: new Map() });

function addInto(into: Map<string, number>, from: Map<string, number>): void {
  for (const [label, count] of from) into.set(label, (into.get(label) ?? 0) + count);
}

/**
 * `gateway_key_requests_total{key,status}` and `gateway_key_tokens_total{key,type}`: key names are label values, so
 * at most `maxKeys` of them have series of their own, the ones used most recently (as the dashboard's KeyUsage
 * keeps its rows). Under a churn of short-lived keys (one per CI job) the keys in use keep their series instead of
 * landing in "(other)" behind a thousand deleted ones.
 *
 * When a key is evicted its counts are added to "(other)" and its own series are dropped. So the sum over every
 * series never goes down: `sum(rate(...))` stays right across evictions. A key that comes back later starts again
 * from 0 in a new series, which rate() and increase() read as a counter reset (a drop to a lower value), not as a
 * negative rate; what it had counted before stays in "(other)".
 */
export class KeyMetrics {
  readonly #keys: RecentlyUsed<KeyCounts>;
  #other = noCounts();

  constructor(
    registry: Registry,
    readonly maxKeys = MAX_KEY_SERIES,
  ) {
    this.#keys = new RecentlyUsed(maxKeys, (_key, counts) => {
      addInto(this.#other.requests, counts.requests);
      addInto(this.#other.tokens, counts.tokens);
    });
    this.#register(
      registry,
      "gateway_key_requests_total",
      "Model requests by virtual key name and HTTP status (auth on).",
      "status",
      (counts) => counts.requests,
    );
    this.#register(
      registry,
      "gateway_key_tokens_total",
      "Tokens by virtual key name and type (prompt, completion).",
      "type",
      (counts) => counts.tokens,
    );
  }

  /** One completed request of `key`. */
  record(key: string, status: number, promptTokens = 0, completionTokens = 0): void {
    const counts = this.#keys.use(key, noCounts);
    const statusLabel = String(status);
    counts.requests.set(statusLabel, (counts.requests.get(statusLabel) ?? 0) + 1);
    if (promptTokens) counts.tokens.set("prompt", (counts.tokens.get("prompt") ?? 0) + promptTokens);
    if (completionTokens) counts.tokens.set("completion", (counts.tokens.get("completion") ?? 0) + completionTokens);
  }

  /** Key names that have series of their own now, least recently used first. */
  keys(): string[] {
    return [...this.#keys.entries()].map(([key]) => key);
  }

  /** Registers one counter with prom-client, which formats what `get()` hands it (as fast-metrics.ts does). */
  #register(
    registry: Registry,
    name: string,
    help: string,
    label: string,
    pick: (counts: KeyCounts) => Map<string, number>,
  ): void {
    const metric = {
      name,
      help,
      type: "counter",
      aggregator: "sum",
      get: () => {
        const values: { value: number; labels: Record<string, string> }[] = [];
        const add = (key: string, counts: KeyCounts) => {
          for (const [value, count] of pick(counts)) values.push({ value: count, labels: { key, [label]: value } });
        };
        for (const [key, counts] of this.#keys.entries()) add(key, counts);
        add(OTHER_KEYS, this.#other);
        return { name, help, type: "counter", aggregator: "sum", values };
      },
      reset: () => {
        this.#keys.clear();
        this.#other = noCounts();
      },
    };
    registry.registerMetric(metric as never);
  }
}

/**
 * The series of `gateway_key_spend_usd`: a gauge read afresh from the state store at every scrape, so it has no
 * history to keep monotonic. The `maxKeys` keys with the highest spend have a series of their own and the rest are
 * summed into "(other)": the state store is shared, so every replica shows the same series.
 */
export function spendSeries(
  spends: readonly { name: string; usd: number }[],
  maxKeys = MAX_KEY_SERIES,
): { key: string; usd: number }[] {
  const ranked = [...spends].sort((a, b) => b.usd - a.usd || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const series = ranked.slice(0, maxKeys).map(({ name, usd }) => ({ key: name, usd }));
  const rest = ranked.slice(maxKeys);
  if (rest.length > 0) series.push({ key: OTHER_KEYS, usd: rest.reduce((sum, { usd }) => sum + usd, 0) });
  return series;
}
