import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { createBackend } from "./backends/create.ts";
import type { UsageReport } from "./backends/usage.ts";
import type { GatewayConfig } from "./config/types.ts";
import { ChatDispatcher } from "./dispatch/chat.ts";
import { EmbeddingsDispatcher } from "./dispatch/embeddings.ts";
import { ShutdownSignal } from "./dispatch/shutdown.ts";
import { HealthChecker } from "./fleet/health-checker.ts";
import { Registry } from "./fleet/registry.ts";
import { buildServer } from "./http/server.ts";
import { Budget, budgetFilter, budgetOrder } from "./policy/budget.ts";
import { SpendRecorder } from "./policy/spend.ts";
import { FILTERS } from "./routing/filters/index.ts";
import { Router } from "./routing/router.ts";
import { Stats } from "./telemetry/stats.ts";
import { VERSION } from "./version.ts";

export interface RunningGateway {
  /** http://host:port the server listens on. */
  url: string;
  app: FastifyInstance;
  registry: Registry;
  health: HealthChecker;
  /**
   * Stops accepting requests, lets those in flight finish for up to `server.shutdown_grace_seconds`, then cuts the
   * rest (streams end with an error event and [DONE]). Resolves with the number of requests cut.
   */
  close(): Promise<{ cut: number }>;
}

/**
 * Starts the gateway: backends, one round of health probes (so that it serves at once), the periodic checker and the
 * HTTP server. `close()` stops everything it started.
 */
export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  const timeouts = { requestTimeoutMs: config.server.request_timeout_seconds * 1000 };
  // Before anything starts: a corrupted spend state file stops start-up with a ConfigError.
  const budget = config.budget
    ? new Budget(config.budget, {
        onSaveError: (error) => logger.error({ err: error }, "could not save the spend state"),
      })
    : undefined;
  const prices = config.prices;
  const spend = new SpendRecorder(prices, budget, logger);
  const backendContext = { timeouts, onUsage: (report: UsageReport) => spend.record(report) };
  const registry = new Registry(
    config.backends.map((settings) => createBackend(settings, backendContext)),
    {
      failureThreshold: config.healthCheck.failure_threshold,
      recoveryThreshold: config.healthCheck.recovery_threshold,
    },
  );
  registry.onTransition((t) => {
    const line = `backend ${t.backend}: ${t.from} -> ${t.to} (${t.reason})`;
    if (t.to === "healthy") logger.info({ backend: t.backend, from: t.from, to: t.to }, line);
    else logger.warn({ backend: t.backend, from: t.from, to: t.to }, line);
  });
  for (const section of config.inactiveSections) {
    logger.warn(`[${section}] is accepted for nexus.toml compatibility but has no effect in this version`);
  }
  const router = new Router({
    ...config.routing,
    policies: config.policies,
    ...(budget ? { filters: [...FILTERS, budgetFilter(budget)], order: budgetOrder(budget) } : {}),
  });
  const maxAttempts = config.routing.max_retries + 1;
  const health = new HealthChecker(registry, config.healthCheck);
  const shutdown = new ShutdownSignal();
  const app = buildServer({
    config,
    registry,
    router,
    chat: new ChatDispatcher(registry, maxAttempts, logger, shutdown),
    embeddings: new EmbeddingsDispatcher(registry, maxAttempts, logger, shutdown),
    stats: new Stats(),
    budget,
    prices,
    logger,
    version: VERSION,
  });
  if (config.healthCheck.enabled) await health.start();
  else await health.checkNow();
  try {
    await app.listen({ host: config.server.host, port: config.server.port });
  } catch (error) {
    await health.stop();
    await registry.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.server.port;
  const host = config.server.host.includes(":") ? `[${config.server.host}]` : config.server.host;
  return {
    url: `http://${host}:${port}`,
    app,
    registry,
    health,
    async close() {
      await health.stop();
      const grace = setTimeout(() => shutdown.cutNow(), config.server.shutdown_grace_seconds * 1000);
      // Connections that turn idle while closing (their last response done) are closed too; Node only closes those
      // idle when close() starts, and keep-alive would hold the others until their timeout.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
      await app.close();
      clearTimeout(grace);
      clearInterval(sweep);
      await registry.close();
      budget?.close();
      return { cut: shutdown.cut };
    },
  };
}
