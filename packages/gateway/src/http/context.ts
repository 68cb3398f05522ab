import type { Logger } from "pino";
import type { Limits } from "../access/admission.ts";
import type { KeyService } from "../access/keys.ts";
import type { GatewayConfig } from "../config/types.ts";
import type { DashboardHub } from "../dashboard/hub.ts";
import type { DispatchPipeline } from "../dispatch/pipeline.ts";
import type { DemandHistory } from "../fleet/demand.ts";
import type { FirstRound } from "../fleet/first-round.ts";
import type { Registry } from "../fleet/registry.ts";
import type { ResponseStore } from "../inbound/responses/store.ts";
import type { LifecycleManager } from "../lifecycle/manager.ts";
import type { Budget } from "../policy/budget.ts";
import type { PriceTable } from "../policy/pricing.ts";
import type { Router } from "../routing/router.ts";
import type { EventBus } from "../telemetry/events.ts";
import type { RequestHistory } from "../telemetry/history.ts";
import type { GatewayMetrics } from "../telemetry/metrics.ts";
import type { Stats } from "../telemetry/stats.ts";

/** Everything the HTTP routes use; built once by the gateway. */
export interface GatewayContext {
  config: GatewayConfig;
  registry: Registry;
  /** The first round of health probes, which may still run while the server listens (fleet/first-round.ts). */
  firstRound: FirstRound;
  router: Router;
  /** Runs chat and embeddings requests: queue, slots, attempts, failover. */
  pipeline: DispatchPipeline;
  events: EventBus;
  stats: Stats;
  history: RequestHistory;
  /** Requests per model and hour, for fleet recommendations. */
  demand: DemandHistory;
  /** Model load, unload and migrate operations. */
  lifecycle: LifecycleManager;
  metrics: GatewayMetrics;
  /** The live feed of the dashboard page (`GET /`). */
  dashboard: DashboardHub;
  /** Undefined when no `[budget]` is configured. */
  budget: Budget | undefined;
  prices: PriceTable;
  /** Keys and their limits; undefined when `[auth]` is off. */
  access: { keys: KeyService; limits: Limits } | undefined;
  /** Where the Responses API keeps responses: the state store's records with Redis (shared by replicas), else memory. */
  responses: ResponseStore;
  logger: Logger;
  version: string;
}
