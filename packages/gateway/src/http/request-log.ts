import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { factsOf, knownFacts } from "../request/facts.ts";
import type { Endpoint, EventBus, RequestCompleted } from "../telemetry/events.ts";
import { type AccessLineWriter, accessLineWriter } from "./access-line.ts";
import { completedEvent } from "./completed-event.ts";

/** The model endpoints, by route: every request to them completes as an event, bodies refused before parsing too. */
const MODEL_ROUTES = new Map<string, Endpoint>([
  ["/v1/chat/completions", "chat"],
  ["/v1/embeddings", "embeddings"],
]);

/**
 * When a response is done (or its client left): chat and embeddings requests become one `request_completed` event,
 * and every request one info line — method, path without the query (which may carry secrets), status, duration, and
 * for model requests the model, backend, route reason and tokens, read from that same event so the log, history,
 * stats and metrics agree. Never headers or bodies.
 */
export function trackRequests(app: FastifyInstance, track: RequestTracker): void {
  app.addHook("onRequest", (request, reply, done) => {
    const endpoint = request.method === "POST" ? MODEL_ROUTES.get(request.routeOptions.url ?? "") : undefined;
    track(request.raw, reply.raw, String(request.id), request.method, request.url, endpoint);
    done();
  });
}

/** Watches one request until its response is done (see trackRequests); the fast chat path calls it directly. */
export type RequestTracker = (
  request: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  method: string,
  url: string,
  endpoint: Endpoint | undefined,
) => void;

export function requestTracker(gatewayLogger: Logger, events: EventBus): RequestTracker {
  const write = gatewayLogger.isLevelEnabled("info") ? accessLineWriter(gatewayLogger) : undefined;
  return (request, res, requestId, method, url, endpoint) => {
    if (request.headers.upgrade !== undefined && endpoint === undefined) {
      logUpgrade(gatewayLogger, write, requestId, method, url, res);
      return;
    }
    if (endpoint) {
      const facts = factsOf(request);
      facts.endpoint = endpoint;
      facts.requestId = requestId;
    }
    const watch = new CompletionWatch(events, write, request, res, requestId, method, url);
    // `on`, not `once`: a response closes once, and `once` wraps each listener (and unwraps it) per request.
    res.on("close", watch.closed);
  };
}

/**
 * One request's way to its completion: when its response closes (and the dispatch has recorded the last attempt), the
 * event and the access line. One object holding what they need, where closures per step were several allocations.
 */
class CompletionWatch {
  readonly #started = performance.now();
  #ms = 0;
  #status = 0;

  constructor(
    private readonly events: EventBus,
    private readonly write: AccessLineWriter | undefined,
    private readonly request: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly requestId: string,
    private readonly method: string,
    private readonly url: string,
  ) {}

  readonly closed = (): void => {
    this.#ms = performance.now() - this.#started;
    this.#status = this.res.writableFinished ? this.res.statusCode : 499;
    const dispatch = knownFacts(this.request)?.dispatch;
    if (dispatch) dispatch.then(this.#report, this.#report);
    else this.#report();
  };

  readonly #report = (): void => {
    const facts = knownFacts(this.request);
    const endpoint = facts?.endpoint;
    const completed = endpoint !== undefined ? completedEvent(facts!, endpoint, this.#status, this.#ms) : undefined;
    if (completed) this.events.emit(completed);
    if (this.write) logLine(this.write, this.requestId, this.method, this.url, this.#status, this.#ms, completed);
  };
}

/**
 * A WebSocket upgrade (the dashboard's socket): one that was refused is an ordinary access line; one that was accepted
 * lives as long as its client and its close is no error (not a 499): a debug line.
 */
function logUpgrade(
  logger: Logger,
  write: AccessLineWriter | undefined,
  requestId: string,
  method: string,
  url: string,
  res: ServerResponse,
): void {
  const started = performance.now();
  res.once("close", () => {
    const ms = Math.round((performance.now() - started) * 10) / 10;
    const path = url.split("?")[0] ?? "";
    if (res.writableFinished) {
      if (write) logLine(write, requestId, method, url, res.statusCode, ms, undefined);
      return;
    }
    if (logger.isLevelEnabled("debug")) {
      logger.debug({ requestId, path, ms }, `WebSocket client of ${path} closed after ${ms} ms`);
    }
  });
}

function logLine(
  write: AccessLineWriter,
  requestId: string,
  method: string,
  url: string,
  status: number,
  ms: number,
  completed: RequestCompleted | undefined,
): void {
  const query = url.indexOf("?");
  const path = query < 0 ? url : url.slice(0, query);
  const rounded = Math.round(ms * 10) / 10;
  write(
    {
      requestId,
      method,
      path,
      status,
      ms: rounded,
      model: completed?.requestedModel || undefined,
      backend: completed?.backend,
      routeReason: completed?.routeReason,
      promptTokens: completed?.promptTokens,
      completionTokens: completed?.completionTokens,
      key: completed?.key,
    },
    `${method} ${path} ${status} ${rounded} ms${describe(completed)}${status === 499 ? " (client went away)" : ""}`,
  );
}

/** " model via backend (reason, 12+34 tokens)" for a model request's log line. */
function describe(completed: RequestCompleted | undefined): string {
  if (!completed?.requestedModel) return "";
  const { routeReason, promptTokens, completionTokens } = completed;
  const tokens =
    promptTokens !== undefined || completionTokens !== undefined
      ? `${promptTokens ?? 0}+${completionTokens ?? 0} tokens`
      : "";
  const details = routeReason && tokens ? `${routeReason}, ${tokens}` : routeReason || tokens;
  const backend = completed.backend ? ` via ${completed.backend}` : "";
  return ` ${completed.requestedModel}${backend}${details ? ` (${details})` : ""}`;
}
