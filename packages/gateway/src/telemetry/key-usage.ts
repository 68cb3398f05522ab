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
 * spend and its limits are the state store's, in the admin API and /metrics).
 */
export class KeyUsage {
  readonly #rows = new Map<string, KeyUsageRow>();

  constructor(events: EventBus) {
    events.on("request_completed", (event) => {
      if (event.key === undefined) return;
      const name = this.#rows.has(event.key) || this.#rows.size < MAX_KEY_ROWS ? event.key : OTHER_KEYS;
      let row = this.#rows.get(name);
      if (!row) {
        row = { key: name, requests: 0, prompt_tokens: 0, completion_tokens: 0 };
        this.#rows.set(name, row);
      }
      row.requests++;
      row.prompt_tokens += event.promptTokens ?? 0;
      row.completion_tokens += event.completionTokens ?? 0;
    });
  }

  /** Most requests first. */
  rows(): KeyUsageRow[] {
    return [...this.#rows.values()].sort((a, b) => b.requests - a.requests || (a.key < b.key ? -1 : 1));
  }
}
