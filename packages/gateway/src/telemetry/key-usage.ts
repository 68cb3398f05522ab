import type { EventBus } from "./events.ts";

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
  /** In order of last use, least recent first (a Map keeps insertion order; a used row is moved to the end). */
  readonly #rows = new Map<string, KeyUsageRow>();
  #other: KeyUsageRow | undefined;

  constructor(
    events: EventBus,
    readonly maxRows = MAX_KEY_ROWS,
  ) {
    events.on("request_completed", (event) => {
      if (event.key === undefined) return;
      const row = this.#rowFor(event.key);
      row.requests++;
      row.prompt_tokens += event.promptTokens ?? 0;
      row.completion_tokens += event.completionTokens ?? 0;
    });
  }

  #rowFor(key: string): KeyUsageRow {
    const known = this.#rows.get(key);
    if (known !== undefined) {
      this.#rows.delete(key);
      this.#rows.set(key, known);
      return known;
    }
    if (this.#rows.size >= this.maxRows) this.#foldLeastRecent();
    const row = { key, requests: 0, prompt_tokens: 0, completion_tokens: 0 };
    this.#rows.set(key, row);
    return row;
  }

  #foldLeastRecent(): void {
    const [key, row] = this.#rows.entries().next().value as [string, KeyUsageRow];
    this.#rows.delete(key);
    this.#other ??= { key: OTHER_KEYS, requests: 0, prompt_tokens: 0, completion_tokens: 0 };
    this.#other.requests += row.requests;
    this.#other.prompt_tokens += row.prompt_tokens;
    this.#other.completion_tokens += row.completion_tokens;
  }

  /** Most requests first. */
  rows(): KeyUsageRow[] {
    const rows = [...this.#rows.values()];
    if (this.#other !== undefined) rows.push(this.#other);
    return rows.sort((a, b) => b.requests - a.requests || (a.key < b.key ? -1 : 1));
  }
}
