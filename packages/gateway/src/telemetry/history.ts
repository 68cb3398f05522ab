import type { EventBus, RequestCompleted } from "./events.ts";

/** One completed request as `GET /v1/history` shows it (no prompt or answer content, ever). */
export interface HistoryEntry {
  request_id: string;
  finished_at: string;
  endpoint: string;
  model: string;
  backend: string | null;
  backend_model: string | null;
  route_reason: string | null;
  status: number;
  outcome: RequestCompleted["outcome"];
  stream: boolean;
  priority: string;
  attempts: number;
  fallback: boolean;
  queued_ms: number;
  duration_ms: number;
  ttft_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** The virtual key's name (auth on), never the key itself. */
  key: string | null;
}

const round = (value: number) => Math.round(value * 100) / 100;

/** The last `capacity` completed requests, from the event stream; a fixed ring, so memory never grows. */
export class RequestHistory {
  /** Events as they came, and beside them when they finished; turned into entries only when read. */
  readonly #events: (RequestCompleted | undefined)[];
  readonly #finishedAt: Float64Array;
  #next = 0;
  #size = 0;

  constructor(
    events: EventBus,
    readonly capacity: number,
  ) {
    this.#events = new Array(capacity);
    this.#finishedAt = new Float64Array(capacity);
    if (capacity > 0) events.on("request_completed", (event) => this.#add(event));
  }

  /** Newest first, at most `limit`. */
  recent(limit = this.capacity): HistoryEntry[] {
    const count = Math.min(limit, this.#size);
    const entries: HistoryEntry[] = [];
    for (let i = 1; i <= count; i++) {
      const at = (this.#next - i + this.capacity) % this.capacity;
      entries.push(historyEntry(this.#events[at]!, this.#finishedAt[at]));
    }
    return entries;
  }

  #add(event: RequestCompleted): void {
    this.#events[this.#next] = event;
    this.#finishedAt[this.#next] = Date.now();
    this.#next = (this.#next + 1) % this.capacity;
    this.#size = Math.min(this.#size + 1, this.capacity);
  }
}

/** A completed request as history and the dashboard show it. */
export function historyEntry(event: RequestCompleted, finishedAt = Date.now()): HistoryEntry {
  return {
    request_id: event.requestId,
    finished_at: new Date(finishedAt).toISOString(),
    endpoint: event.endpoint,
    model: event.requestedModel,
    backend: event.backend ?? null,
    backend_model: event.model ?? null,
    route_reason: event.routeReason ?? null,
    status: event.status,
    outcome: event.outcome,
    stream: event.stream,
    priority: event.priority,
    attempts: event.attempts,
    fallback: event.fallback,
    queued_ms: round(event.queuedMs),
    duration_ms: round(event.durationMs),
    ttft_ms: event.ttftMs === undefined ? null : round(event.ttftMs),
    prompt_tokens: event.promptTokens ?? null,
    completion_tokens: event.completionTokens ?? null,
    key: event.key ?? null,
  };
}
