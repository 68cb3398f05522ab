import type { Registry } from "../fleet/registry.ts";
import type { Budget } from "../policy/budget.ts";
import type { OperationView } from "../telemetry/events.ts";
import type { RequestHistory } from "../telemetry/history.ts";
import type { KeyUsageRow } from "../telemetry/key-usage.ts";
import { type QueueView, type Stats, statsBody } from "../telemetry/stats.ts";

/** What the dashboard needs to draw itself from nothing. */
export interface DashboardSources {
  version: string;
  registry: Registry;
  stats: Stats;
  history: RequestHistory;
  queue: () => QueueView;
  budget: Budget | undefined;
  /** Lifecycle operations still running (none until a backend type supports them). */
  operations: () => readonly OperationView[];
  /** Requests and tokens per virtual key (empty when auth is off). */
  keys: () => readonly KeyUsageRow[];
}

/** Requests in the snapshot's log; the page keeps at most this many rows too. */
const SNAPSHOT_REQUESTS = 100;

/** One backend as a card: live state only, never credentials or query strings. */
function backendCard(state: Registry["backends"][number]): Record<string, unknown> {
  const { settings } = state;
  return {
    name: state.name,
    type: settings.type,
    kind: settings.kind,
    zone: settings.zone,
    tier: settings.tier,
    status: state.status,
    in_flight: state.pending,
    max_concurrent: settings.maxConcurrent ?? null,
    probe_latency_ms: state.probeLatencyMs === undefined ? null : Math.round(state.probeLatencyMs * 100) / 100,
    last_error: state.lastError ?? null,
    models: state.models.map((model) => model.id),
  };
}

/** The whole picture: fleet, counters, queue, budget, recent requests, running operations, usage per key. */
export function snapshot(sources: DashboardSources): Record<string, unknown> {
  const queue = sources.queue();
  return {
    type: "snapshot",
    version: sources.version,
    at: new Date().toISOString(),
    backends: sources.registry.backends.map(backendCard),
    stats: statsBody(sources.stats, sources.registry, queue),
    budget: sources.budget?.statsBody() ?? null,
    requests: sources.history.recent(SNAPSHOT_REQUESTS),
    operations: sources.operations(),
    keys: sources.keys(),
  };
}

/** The fleet's moving parts (sent at most once a second while anything happens): cards and queue depth. */
export function fleetUpdate(sources: DashboardSources): Record<string, unknown> {
  return {
    type: "fleet",
    backends: sources.registry.backends.map(backendCard),
    queue_depth: sources.queue().depth,
    budget: sources.budget?.statsBody() ?? null,
  };
}
