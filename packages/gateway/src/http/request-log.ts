import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";

/** What the routes learn about a request that is worth a log line: the model asked for and the backend that served. */
export interface RequestFacts {
  model?: string;
  backend?: string;
}

const FACTS = new WeakMap<IncomingMessage, RequestFacts>();

/** The facts object of a request, created on first use; routes and dispatchers fill it in. */
export function factsOf(request: IncomingMessage): RequestFacts {
  let facts = FACTS.get(request);
  if (!facts) {
    facts = {};
    FACTS.set(request, facts);
  }
  return facts;
}

/**
 * One info line per request when its response is done (or the client left): method, path without the query (which
 * may carry secrets), status, duration, and model and backend where known. Never headers or bodies.
 */
export function logRequests(app: FastifyInstance, logger: Logger): void {
  if (!logger.isLevelEnabled("info")) return;
  app.addHook("onRequest", (request, reply, done) => {
    const started = performance.now();
    const res = reply.raw;
    res.once("close", () => {
      const path = request.url.split("?")[0] ?? "";
      const ms = Math.round((performance.now() - started) * 10) / 10;
      const status = res.writableFinished ? res.statusCode : 499;
      const facts = FACTS.get(request.raw);
      const where = facts?.backend
        ? ` ${facts.model ?? "?"} via ${facts.backend}`
        : facts?.model
          ? ` ${facts.model}`
          : "";
      logger.info(
        {
          requestId: request.id,
          method: request.method,
          path,
          status,
          ms,
          model: facts?.model,
          backend: facts?.backend,
        },
        `${request.method} ${path} ${status} ${ms} ms${where}${status === 499 ? " (client went away)" : ""}`,
      );
    });
    done();
  });
}
