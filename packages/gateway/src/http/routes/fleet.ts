import type { FastifyInstance } from "fastify";
import { recommend } from "../../fleet/recommendations.ts";
import type { GatewayContext } from "../context.ts";
import { sendJson } from "../send.ts";

/** GET /v1/fleet/recommendations: advice computed from the demand history when asked (a few hundred additions). */
export function registerFleetRoutes(app: FastifyInstance, context: GatewayContext): void {
  const { registry, demand, config } = context;
  const settings = {
    minSampleDays: config.fleet.min_sample_days,
    minRequestCount: config.fleet.min_request_count,
    maxRecommendations: config.fleet.max_recommendations,
    peakRatio: config.fleet.peak_ratio,
    risingPercent: config.fleet.rising_percent,
    idleHours: config.fleet.idle_hours,
  };
  app.get("/v1/fleet/recommendations", async (_request, reply) => {
    const now = Date.now();
    const backends = registry.backends.map((state) => ({
      name: state.name,
      healthy: state.healthy,
      canLoad: state.backend.lifecycle !== undefined,
      models: new Set(state.models.map((model) => model.id)),
    }));
    // Nexus's shape: a client written for Nexus reads it unchanged.
    sendJson(reply, {
      recommendations: config.fleet.enabled ? recommend(demand, backends, settings, now) : [],
      fleet_enabled: config.fleet.enabled,
      generated_at: new Date(now).toISOString(),
    });
  });
}
