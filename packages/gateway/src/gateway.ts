import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { Limits } from "./access/admission.ts";
import { KeyService } from "./access/keys.ts";
import { createBackend } from "./backends/create.ts";
import type { UsageReport } from "./backends/usage.ts";
import type { BackendSettings, GatewayConfig } from "./config/types.ts";
import { DashboardHub, HUB_DEFAULTS } from "./dashboard/hub.ts";
import type { MdnsDiscovery } from "./discovery/mdns.ts";
import { DispatchPipeline } from "./dispatch/pipeline.ts";
import { ServiceTimes } from "./dispatch/service-times.ts";
import { ShutdownSignal } from "./dispatch/shutdown.ts";
import { DemandHistory } from "./fleet/demand.ts";
import { FirstRound } from "./fleet/first-round.ts";
import { HealthChecker } from "./fleet/health-checker.ts";
import { Registry } from "./fleet/registry.ts";
import { CloseOnIdle } from "./http/close-on-idle.ts";
import { buildServer } from "./http/server.ts";
import { RecordResponseStore } from "./inbound/responses/record-store.ts";
import { MemoryResponseStore } from "./inbound/responses/store.ts";
import { ModelsInFlight } from "./lifecycle/in-flight.ts";
import { LifecycleManager } from "./lifecycle/manager.ts";
import { OperationStore } from "./lifecycle/operations.ts";
import { parseConfigText } from "./load-config.ts";
import { Budget, budgetFilter, budgetOrder } from "./policy/budget.ts";
import { closeBudget, logStoreCondition } from "./policy/budget-log.ts";
import { PriceTable } from "./policy/pricing.ts";
import { SpendRecorder } from "./policy/spend.ts";
import { countPromptTokens, countTextTokens, loadTokenizer } from "./policy/tokens.ts";
import { capacityFilter, FILTERS } from "./routing/filters/index.ts";
import { QualityTracker } from "./routing/quality.ts";
import { Router } from "./routing/router.ts";
import { createStateStore } from "./state/create.ts";
import { sharedSpendOf } from "./state/shared-spend.ts";
import { reportStoreAvailability } from "./state/store-log.ts";
import { type BackendSource, EventBus } from "./telemetry/events.ts";
import { RequestHistory } from "./telemetry/history.ts";
import { KeyUsage } from "./telemetry/key-usage.ts";
import { GatewayMetrics } from "./telemetry/metrics.ts";
import { feedQuality } from "./telemetry/quality-feed.ts";
import { Stats } from "./telemetry/stats.ts";
import { VERSION } from "./version.ts";

/** After listening, how long start-up's own work lets the first requests go first (see startGateway). */
const SETTLE_MS = 100;

export interface RunningGateway {
  /** http://host:port the server listens on. */
  url: string;
  app: FastifyInstance;
  registry: Registry;
  health: HealthChecker;
  /** Every request, attempt, queue step and health transition (stats read it; so can tests and tools). */
  events: EventBus;
  /**
   * Changes the fleet while requests are in flight (what discovery, the lifecycle API and config reload use): a backend
   * added is probed at once; one removed finishes its requests and is closed once idle.
   */
  fleet: {
    add(settings: BackendSettings, source: BackendSource): Promise<void>;
    remove(name: string): boolean;
  };
  dashboard: DashboardHub;
  /**
   * Stops accepting requests, lets those in flight finish for up to `server.shutdown_grace_seconds`, then cuts the
   * rest (streams end with an error event and [DONE]). Resolves with the number of requests cut.
   */
  close(): Promise<{ cut: number }>;
}

/**
 * Starts the gateway: backends, one round of health probes, the periodic checker and the HTTP server, which listens
 * while that round runs; resolves once both are done. `close()` stops everything it started.
 */
export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  const clientLimits = {
    requestTimeoutMs: config.server.request_timeout_seconds * 1000,
    answerLimitBytes: config.server.answer_limit_bytes,
  };
  // Before anything starts: a corrupted spend state file stops start-up with a ConfigError.
  const stateStore = await createStateStore(config.state, {
    onWriteError: (error) =>
      logger.error(
        { err: error },
        "cannot write the state file (keys, usage); kept in memory, the write is retried with the next change",
      ),
  });
  const storeLog = reportStoreAvailability(stateStore, logger);
  let opened: Budget | undefined;
  try {
    opened = config.budget
      ? new Budget(config.budget, {
          store: { onChange: logStoreCondition(logger, config.budget.stateFile) },
          // With Redis every replica adds to and reads one global spend; the embedded store keeps the state file.
          ...(stateStore.kind === "redis" ? { shared: sharedSpendOf(stateStore, storeLog.failed) } : {}),
        })
      : undefined;
  } catch (error) {
    // The state file is given up (its lock) before the failure is reported.
    await stateStore.close();
    throw error;
  }
  const budget = opened;
  const budgetSync =
    budget && stateStore.kind === "redis"
      ? setInterval(() => budget.refresh().catch(storeLog.failed), 1_000)
      : undefined;
  budgetSync?.unref();
  const keys = config.auth ? new KeyService(stateStore) : undefined;
  const access = keys ? { keys, limits: new Limits(stateStore, storeLog.failed) } : undefined;
  const prices = new PriceTable(config.pricing);
  const spend = new SpendRecorder(prices, budget, logger);
  const backendContext = {
    limits: clientLimits,
    onUsage: (report: UsageReport) => spend.record(report),
    tokens: { prompt: countPromptTokens, text: countTextTokens },
  };
  const registry = new Registry(
    config.backends.map((settings) => createBackend(settings, backendContext)),
    {
      failureThreshold: config.healthCheck.failure_threshold,
      recoveryThreshold: config.healthCheck.recovery_threshold,
    },
  );
  const events = new EventBus({
    onListenerError: ({ event, error }) =>
      logger.error(
        { event, err: error },
        `a subscriber of ${event} events threw; the request went on (gateway_event_listener_errors_total counts the next ones)`,
      ),
  });
  registry.onTransition((t) => {
    events.emit({ type: "backend_health", backend: t.backend, from: t.from, to: t.to, reason: t.reason });
    const line = `backend ${t.backend}: ${t.from} -> ${t.to} (${t.reason})`;
    if (t.to === "healthy") logger.info({ backend: t.backend, from: t.from, to: t.to }, line);
    else logger.warn({ backend: t.backend, from: t.from, to: t.to }, line);
  });
  registry.onChange((change) => {
    if (change.kind === "models") {
      events.emit({ type: "models_changed", backend: change.state.name, added: change.added, removed: change.removed });
      return;
    }
    events.emit({ type: "backend_changed", change: change.change, backend: change.state.name, source: change.source });
    logger.info(
      { backend: change.state.name, source: change.source },
      `backend ${change.state.name} ${change.change} (${change.source})`,
    );
  });
  for (const section of config.inactiveSections) {
    logger.warn(
      `[${section}]: its Nexus keys are accepted for nexus.toml compatibility but have no effect in this version`,
    );
  }
  const quality = new QualityTracker({
    errorRateThreshold: config.quality.error_rate_threshold,
    minRequests: config.quality.min_requests,
    windowSeconds: config.quality.window_seconds,
    cooldownSeconds: config.quality.cooldown_seconds,
    ttftPenaltyThresholdMs: config.quality.ttft_penalty_threshold_ms,
  });
  feedQuality(events, quality);
  const stats = new Stats(events);
  const history = new RequestHistory(events, config.server.history_size);
  const demand = new DemandHistory(config.fleet.enabled ? events : undefined, (model) => registry.knows(model));
  // Off by default: then nothing subscribes, requests pay nothing for tracing, and OpenTelemetry is never loaded.
  const stopTracing = config.tracing.enabled
    ? (await import("./telemetry/tracing.ts")).traceRequests(events, registry)
    : undefined;
  const health = new HealthChecker(registry, config.healthCheck);
  const lifecycle = new LifecycleManager(
    registry,
    health,
    new OperationStore(events, config.lifecycle.operation_timeout_seconds * 1000),
    new ModelsInFlight(events),
  );
  // Policy stages (budget, lifecycle) go before capacity, which stays last (a request only capacity turned away may
  // wait in the queue).
  const policyStages = [...(budget ? [budgetFilter(budget)] : []), lifecycle.filter];
  let queueDepth = () => 0;
  const metrics = new GatewayMetrics({
    events,
    registry,
    budget,
    queueDepth: () => queueDepth(),
    stateStoreUp: () => stateStore.up,
    ...(keys ? { keySpend: () => keys.spendByName() } : {}),
  });
  const router = new Router({
    ...config.routing,
    policies: config.policies,
    quality,
    timings: metrics.routingTimings,
    filters: [...FILTERS.filter((f) => f !== capacityFilter), ...policyStages, capacityFilter],
    ...(budget ? { order: budgetOrder(budget) } : {}),
  });
  const shutdown = new ShutdownSignal();
  const pipeline = new DispatchPipeline({
    registry,
    events,
    serviceTimes: new ServiceTimes(events),
    logger,
    maxAttempts: config.routing.max_retries + 1,
    queue: {
      enabled: config.queue.enabled,
      maxSize: config.queue.max_size,
      maxWaitSeconds: config.queue.max_wait_seconds,
    },
    quality,
    shutdown,
  });
  queueDepth = () => pipeline.queue.depth;
  const keyUsage = new KeyUsage(events);
  const dashboard = new DashboardHub(
    events,
    {
      version: VERSION,
      registry,
      stats,
      history,
      budget,
      queue: () => ({ enabled: pipeline.queue.enabled, maxSize: pipeline.queue.maxSize, depth: pipeline.queue.depth }),
      operations: () => lifecycle.operations.running(),
      keys: () => keyUsage.rows(),
    },
    { ...HUB_DEFAULTS, maxClients: config.server.dashboard_max_clients },
  );
  // The first round of probes starts now, before the server is built. The server listens as soon as it is ready,
  // without waiting for the round (a backend that does not answer would keep the port closed for up to
  // health_check.timeout_seconds): requests that come meanwhile wait for what they need of it (fleet/first-round.ts).
  const firstRound = new FirstRound(config.healthCheck.enabled ? health.start() : health.checkNow(), registry);
  const app = buildServer({
    config,
    registry,
    firstRound,
    router,
    pipeline,
    events,
    stats,
    history,
    demand,
    lifecycle,
    metrics,
    dashboard,
    budget,
    prices,
    access,
    responses: stateStore.kind === "redis" ? new RecordResponseStore(stateStore) : new MemoryResponseStore(),
    logger,
    version: VERSION,
  });
  const connections = new CloseOnIdle(app.server);
  try {
    await app.ready();
    await app.listen({ host: config.server.host, port: config.server.port });
    // Started once the round has settled too: whoever starts the gateway then finds every backend's health known.
    await firstRound.done;
  } catch (error) {
    dashboard.close();
    await health.stop();
    await registry.close();
    clearInterval(budgetSync);
    closeBudget(budget, logger);
    await stateStore.close();
    throw error;
  }
  const fleet: RunningGateway["fleet"] = {
    async add(settings, source) {
      await health.checkBackend(registry.add(createBackend(settings, backendContext), source));
    },
    remove: (name) => registry.remove(name),
  };
  // Once start-up has settled (SETTLE_MS after listening), so that the first requests, often waiting for the port
  // to open, are answered before the event loop evaluates mDNS's library and starts the tokenizer thread: discovery
  // only ever adds backends, later, as they announce themselves; cloud calls are budgeted on BPE counts, and a count
  // that comes first starts the thread itself (it waits for the tables either way).
  let discovery: MdnsDiscovery | undefined;
  let closing = false;
  const startDiscovery = async () => {
    const { MdnsDiscovery } = await import("./discovery/mdns.ts");
    if (closing) return;
    discovery = new MdnsDiscovery(
      {
        hasUrl: (url) => registry.backends.some((state) => state.settings.url === url),
        hasName: (name) => registry.get(name) !== undefined,
        // Settings as if configured: the same defaults and validation as a [[backends]] entry.
        add: (name, type, url) => {
          const entry = `[[backends]]\nname = ${JSON.stringify(name)}\nurl = ${JSON.stringify(url)}\ntype = ${JSON.stringify(type)}\n`;
          return fleet.add(parseConfigText(entry, "mdns", {}).backends[0]!, "mdns");
        },
        remove: (name) => {
          if (registry.sourceOf(name) === "mdns") registry.remove(name);
        },
      },
      { serviceTypes: config.discovery.service_types, gracePeriodSeconds: config.discovery.grace_period_seconds },
      logger,
    );
    discovery.start();
  };
  const settled = setTimeout(() => {
    if (config.backends.some((backend) => backend.kind === "cloud")) loadTokenizer();
    if (config.discovery.enabled) {
      startDiscovery().catch((error: unknown) => logger.error({ err: error }, "mDNS discovery could not start"));
    }
  }, SETTLE_MS);
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.server.port;
  const host = config.server.host.includes(":") ? `[${config.server.host}]` : config.server.host;
  return {
    url: `http://${host}:${port}`,
    app,
    registry,
    health,
    events,
    dashboard,
    fleet,
    async close() {
      closing = true;
      clearTimeout(settled);
      discovery?.stop();
      await health.stop();
      dashboard.close();
      const grace = setTimeout(() => shutdown.cutNow(), config.server.shutdown_grace_seconds * 1000);
      // Node only closes the connections idle when close() starts; keep-alive would hold the others until their
      // timeout. Each one is closed the moment its last answer is done.
      connections.stop();
      await app.close();
      clearTimeout(grace);
      await registry.close();
      clearInterval(budgetSync);
      closeBudget(budget, logger);
      await stateStore.close();
      stopTracing?.();
      return { cut: shutdown.cut };
    },
  };
}
