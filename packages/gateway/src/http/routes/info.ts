import type { FastifyInstance, FastifyRequest } from "fastify";
import { modelNotFound } from "../../dispatch/route-errors.ts";
import { anthropicEnvelope } from "../../inbound/anthropic/errors.ts";
import { anthropicModel, anthropicModelList, type ListedModel } from "../../inbound/anthropic/models.ts";
import { invalidRequest } from "../../request/errors.ts";
import { statsBody } from "../../telemetry/stats.ts";
import { afterFirstRound } from "../after-first-round.ts";
import type { GatewayContext } from "../context.ts";
import { mayUseModel } from "../key-gate.ts";
import { sendError, sendJson } from "../send.ts";

/** GET /v1/models, /health, /v1/stats, /v1/history and /metrics. */
export function registerInfoRoutes(app: FastifyInstance, context: GatewayContext): void {
  const waitForProbes = afterFirstRound(context.firstRound);
  const { registry, stats, version, pipeline, history, metrics } = context;

  /** The models of healthy backends, those the request's key may use. */
  const listModels = (request: FastifyRequest): Record<string, unknown>[] => {
    const data: Record<string, unknown>[] = [];
    const allowed = mayUseModel(request.raw);
    for (const state of registry.backends) {
      if (!state.healthy) continue;
      for (const model of state.models) {
        if (!allowed(model.id)) continue;
        const entry: Record<string, unknown> = {
          id: model.id,
          object: "model",
          created: state.firstSeen(model.id),
          owned_by: state.name,
        };
        if (model.contextLength !== undefined) entry["context_length"] = model.contextLength;
        if (model.capabilities !== undefined) entry["capabilities"] = [...model.capabilities].sort();
        data.push(entry);
      }
    }
    return data.sort((a, b) => compare(a["id"], b["id"]) || compare(a["owned_by"], b["owned_by"]));
  };

  // Anthropic's clients send anthropic-version: they get Anthropic's list shape (one page).
  const listed = (request: FastifyRequest): ListedModel[] =>
    listModels(request).map((model) => ({ id: String(model["id"]), created: Number(model["created"]) }));

  app.get("/v1/models", waitForProbes, async (request, reply) => {
    if (request.headers["anthropic-version"] !== undefined) return sendJson(reply, anthropicModelList(listed(request)));
    sendJson(reply, { object: "list", data: listModels(request) });
  });

  // OpenAI's "retrieve model": the first healthy backend's entry for the id (ids may contain "/", hence the wildcard).
  app.get("/v1/models/*", waitForProbes, async (request, reply) => {
    // The router has already decoded the path once; decoding again would turn "%25" into a broken escape.
    const id = (request.params as { "*": string })["*"];
    const entry = listModels(request).find((model) => model.id === id);
    const anthropic = request.headers["anthropic-version"] !== undefined;
    if (entry && anthropic) return sendJson(reply, anthropicModel({ id, created: Number(entry["created"]) }));
    if (entry) return sendJson(reply, entry);
    sendError(reply, modelNotFound(id, registry.healthyModelIds()), {}, anthropic ? anthropicEnvelope : undefined);
  });

  app.get("/health", async (_request, reply) => {
    const total = registry.backends.length;
    const healthy = registry.backends.filter((state) => state.healthy).length;
    const status = healthStatus(context.firstRound.settled, total, healthy);
    const body = {
      status,
      version,
      uptime_seconds: stats.uptimeSeconds,
      backends: { total, healthy, unhealthy: total - healthy },
      models: { total: registry.healthyModelIds().length },
      // Only with a budget: whether its state file takes writes ("failing": spend is counted but not saved).
      ...(context.budget ? { state_store: context.budget.storeCondition.state } : {}),
    };
    sendJson(reply, body, status === "unhealthy" || status === "starting" ? 503 : 200);
  });

  app.get("/v1/stats", async (_request, reply) => {
    const body = statsBody(stats, registry, {
      enabled: pipeline.queue.enabled,
      maxSize: pipeline.queue.maxSize,
      depth: pipeline.queue.depth,
    });
    // Like Nexus: the budget object is there when a budget is configured.
    if (context.budget) body["budget"] = context.budget.statsBody();
    sendJson(reply, body);
  });

  app.get("/metrics", async (_request, reply) => {
    const text = await metrics.text();
    reply.code(200).header("content-type", metrics.contentType).send(text);
  });

  // The last completed requests, newest first: ?limit=N (1..history_size) for fewer.
  app.get("/v1/history", async (request, reply) => {
    const given = (request.query as Record<string, unknown>)["limit"];
    let limit = history.capacity;
    if (given !== undefined) {
      limit = typeof given === "string" && /^\d{1,6}$/.test(given) ? Number(given) : 0;
      if (limit < 1 || limit > history.capacity) {
        const range = history.capacity > 0 ? `between 1 and ${history.capacity}` : "absent: the history is off";
        return sendError(
          reply,
          invalidRequest(`limit must be an integer ${range} (server.history_size)`, "limit", "invalid_value"),
        );
      }
    }
    sendJson(reply, { object: "list", capacity: history.capacity, data: history.recent(limit) });
  });
}

function compare(a: unknown, b: unknown): number {
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/**
 * /health's status: "starting" while the first round of probes runs (the gateway listens, and requests wait for what
 * they need of it), then "healthy" (every backend), "degraded" (some) or "unhealthy" (none).
 */
function healthStatus(firstRoundSettled: boolean, total: number, healthy: number): string {
  if (!firstRoundSettled) return "starting";
  if (total > 0 && healthy === total) return "healthy";
  return healthy > 0 ? "degraded" : "unhealthy";
}
