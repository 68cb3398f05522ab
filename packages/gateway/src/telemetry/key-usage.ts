import type { EventBus } from "./events.ts";
import { RecentlyUsed } from "./recently-used.ts";

/** Keys tallied one by one; past this many names (a churn of short-lived keys) the rest share one row. */
const MAX_KEY_ROWS = 1_000;
const OTHER_KEYS = "(other keys)";

export interface KeyUsageRow {
  key: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * Requests and tokens per virtual key, since this replica started: what the dashboard shows of each key (the key's
 * spend and its limits are the state store's, in the admin API and /metrics). At most MAX_KEY_ROWS keys have a row
 * of their own; when one more comes, the key that has gone longest without a request is folded into "(other keys)".
 * So under a churn of short-lived keys (one per CI job, say) the keys in use keep their rows, instead of every new
 * key landing in "(other keys)" behind a thousand deleted ones.
 */
export class KeyUsage {
  readonly #rows: RecentlyUsed<KeyUsageRow>;
  #other: KeyUsageRow | undefined;

  constructor(
    events: EventBus,
    readonly maxRows = MAX_KEY_ROWS,
  ) {
    this.#rows = new RecentlyUsed(maxRows, (_key, row) => {
      this.#other ??= { key: OTHER_KEYS, requests: 0, prompt_tokens: 0, completion_tokens: 0 };
      this.#other.requests += row.requests;
      this.#other.prompt_tokens += row.prompt_tokens;
      this.#other.completion_tokens += row.completion_tokens;
    });
    events.on("request_completed", (event) => {
      if (event.key === undefined) return;
      const key = event.key;
      const row = this.#rows.use(key, () => ({ key, requests: 0, prompt_tokens: 0, completion_tokens: 0 }));
      row.requests++;
      row.prompt_tokens += event.promptTokens ?? 0;
      row.completion_tokens += event.completionTokens ?? 0;
    });
  }

  /** Most requests first. */
  rows(): KeyUsageRow[] {
    const rows = [...this.#rows.entries()].map(([, row]) => row);
    if (this.#other !== undefined) rows.push(this.#other);
    return rows.sort((a, b) => b.requests - a.requests || (a.key < b.key ? -1 : 1));
  }
}
