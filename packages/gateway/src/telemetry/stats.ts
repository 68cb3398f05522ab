import type { Registry } from "../fleet/registry.ts";
import type { EventBus, RequestCompleted } from "./events.ts";

interface BackendCounters {
  requests: number;
  errors: number;
  clientAborts: number;
  totalLatencyMs: number;
}

interface QueueCounters {
  queued: number;
  dispatched: number;
  expired: number;
  clientGone: number;
  rejectedFull: number;
  totalWaitMs: number;
  depth: number;
}

/** Completed requests by how they ended (`request_completed` outcomes). */
type OutcomeCounts = Record<RequestCompleted["outcome"], number>;

interface ModelCounters {
  requests: number;
  errors: number;
  totalDurationMs: number;
}

/** Live queue facts the stats body shows besides the counters (set when the queue exists). */
export interface QueueView {
  readonly enabled: boolean;
  readonly maxSize: number;
  readonly depth: number;
}

/**
 * The `/v1/stats` counters, derived from the event stream only: dispatch emits, this subscribes. Pending requests and
 * health are read live from the registry.
 */
export class Stats {
  readonly startedAt = Date.now();
  #totalRequests = 0;
  readonly #outcomes: OutcomeCounts = { ok: 0, client_error: 0, rejected: 0, error: 0, client_abort: 0 };
  /** Keyed by the model a backend served: only models the fleet has, so client-chosen names never grow it. */
  readonly #models = new Map<string, ModelCounters>();
  readonly #backends = new Map<string, BackendCounters>();
  readonly #queue: QueueCounters = {
    queued: 0,
    dispatched: 0,
    expired: 0,
    clientGone: 0,
    rejectedFull: 0,
    totalWaitMs: 0,
    depth: 0,
  };

  constructor(events: EventBus) {
    events.on("request_received", () => {
      this.#totalRequests++;
    });
    events.on("request_completed", (event) => {
      this.#outcomes[event.outcome]++;
      if (event.model === undefined) return;
      let counters = this.#models.get(event.model);
      if (!counters) {
        counters = { requests: 0, errors: 0, totalDurationMs: 0 };
        this.#models.set(event.model, counters);
      }
      counters.requests++;
      counters.totalDurationMs += event.durationMs;
      if (event.outcome === "error") counters.errors++;
    });
    events.on("attempt_finished", (event) => {
      const counters = this.#backend(event.backend);
      counters.requests++;
      counters.totalLatencyMs += event.durationMs;
      if (event.outcome === "client_abort") counters.clientAborts++;
    });
    events.on("attempt_failed", (event) => {
      const counters = this.#backend(event.backend);
      counters.requests++;
      counters.errors++;
      counters.totalLatencyMs += event.durationMs;
    });
    events.on("queued", (event) => {
      this.#queue.queued++;
      this.#queue.depth = event.depth;
    });
    events.on("queue_rejected", () => {
      this.#queue.rejectedFull++;
    });
    events.on("dequeued", (event) => {
      this.#queue.depth = event.depth;
      this.#queue.totalWaitMs += event.waitMs;
      if (event.outcome === "dispatched") this.#queue.dispatched++;
      else if (event.outcome === "expired") this.#queue.expired++;
      else if (event.outcome === "client_gone") this.#queue.clientGone++;
    });
  }

  get uptimeSeconds(): number {
    return Math.floor((Date.now() - this.startedAt) / 1000);
  }

  get totalRequests(): number {
    return this.#totalRequests;
  }

  backend(name: string): Readonly<BackendCounters> {
    return this.#backend(name);
  }

  get outcomes(): Readonly<OutcomeCounts> {
    return this.#outcomes;
  }

  get models(): ReadonlyMap<string, Readonly<ModelCounters>> {
    return this.#models;
  }

  get queue(): Readonly<QueueCounters> {
    return this.#queue;
  }

  #backend(name: string): BackendCounters {
    let counters = this.#backends.get(name);
    if (!counters) {
      counters = { requests: 0, errors: 0, clientAborts: 0, totalLatencyMs: 0 };
      this.#backends.set(name, counters);
    }
    return counters;
  }
}

/** The `GET /v1/stats` body. */
export function statsBody(stats: Stats, registry: Registry, queue?: QueueView): Record<string, unknown> {
  const q = stats.queue;
  const left = q.dispatched + q.expired + q.clientGone;
  return {
    uptime_seconds: stats.uptimeSeconds,
    total_requests: stats.totalRequests,
    requests: {
      completed: Object.values(stats.outcomes).reduce((sum, count) => sum + count, 0),
      succeeded: stats.outcomes.ok,
      client_errors: stats.outcomes.client_error,
      rejected: stats.outcomes.rejected,
      errors: stats.outcomes.error,
      client_aborts: stats.outcomes.client_abort,
    },
    models: [...stats.models]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([model, counters]) => ({
        model,
        requests: counters.requests,
        errors: counters.errors,
        average_duration_ms: round(counters.totalDurationMs / counters.requests),
      })),
    backends: registry.backends.map((state) => {
      const counters = stats.backend(state.name);
      return {
        name: state.name,
        type: state.settings.type,
        url: publicUrl(state.settings.url),
        status: state.status,
        requests: counters.requests,
        errors: counters.errors,
        client_aborts: counters.clientAborts,
        average_latency_ms: round(counters.requests === 0 ? 0 : counters.totalLatencyMs / counters.requests),
        pending: state.pending,
        max_concurrent: state.settings.maxConcurrent ?? null,
        probe_latency_ms: state.probeLatencyMs === undefined ? null : round(state.probeLatencyMs),
        last_error: state.lastError ?? null,
        models: state.models.map((model) => model.id),
      };
    }),
    queue: {
      enabled: queue?.enabled ?? false,
      depth: queue?.depth ?? 0,
      max_size: queue?.maxSize ?? 0,
      queued: q.queued,
      dispatched: q.dispatched,
      expired: q.expired,
      client_gone: q.clientGone,
      rejected_full: q.rejectedFull,
      average_wait_ms: round(left === 0 ? 0 : q.totalWaitMs / left),
    },
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** A backend URL without credentials or query (those may hold secrets). */
function publicUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return "";
  }
}
