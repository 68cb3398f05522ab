import type { Registry } from "../fleet/registry.ts";

/** Gateway-wide counters. Per-backend counters live on each BackendState. */
export class Stats {
  readonly startedAt = Date.now();
  totalRequests = 0;

  get uptimeSeconds(): number {
    return Math.floor((Date.now() - this.startedAt) / 1000);
  }
}

/** The `GET /v1/stats` body. */
export function statsBody(stats: Stats, registry: Registry): Record<string, unknown> {
  return {
    uptime_seconds: stats.uptimeSeconds,
    total_requests: stats.totalRequests,
    backends: registry.backends.map((state) => ({
      name: state.name,
      type: state.settings.type,
      url: publicUrl(state.settings.url),
      status: state.status,
      requests: state.requests,
      errors: state.errors,
      client_aborts: state.clientAborts,
      average_latency_ms: round(state.averageLatencyMs),
      pending: state.pending,
      probe_latency_ms: state.probeLatencyMs === undefined ? null : round(state.probeLatencyMs),
      last_error: state.lastError ?? null,
      models: state.models.map((model) => model.id),
    })),
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
