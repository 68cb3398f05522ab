import type { IncomingMessage, ServerResponse } from "node:http";
import type { Endpoint, Priority, RequestCompleted } from "../telemetry/events.ts";

/**
 * What the routes and the dispatch pipeline learn about a chat or embeddings request while it runs: the one record
 * its `request_completed` event (and through it the access log, history, stats and metrics) is built from.
 */
export interface RequestFacts {
  endpoint?: Endpoint;
  requestId?: string;
  /** The model as the client asked for it. */
  model?: string;
  stream?: boolean;
  priority?: Priority;
  /** The backend tried last (the one that answered, when one did), and the model sent to it. */
  backend?: string;
  backendModel?: string;
  routeReason?: string;
  attempts?: number;
  queuedMs?: number;
  ttftMs?: number;
  promptTokens?: number;
  completionTokens?: number;
  /** The last attempt answered but its stream broke off. */
  brokenStream?: boolean;
  /** The dispatch pipeline's run: the response may close before it has recorded the last attempt's facts. */
  dispatch?: Promise<void>;
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

export function knownFacts(request: IncomingMessage): RequestFacts | undefined {
  return FACTS.get(request);
}

/** How the request ended, for a client who got `status` (499: it left before the answer was complete). */
function outcomeOf(facts: RequestFacts, status: number): RequestCompleted["outcome"] {
  if (status === 499) return "client_abort";
  if (!facts.attempts) return "rejected";
  if (facts.brokenStream || status >= 500) return "error";
  return status >= 400 ? "client_error" : "ok";
}

/** The `request_completed` event of a chat or embeddings request whose response is over. */
export function completedEvent(
  facts: RequestFacts & { endpoint: Endpoint },
  res: ServerResponse,
  status: number,
  durationMs: number,
): RequestCompleted {
  const fallback = res.getHeader("x-gateway-fallback-model");
  const reason = res.getHeader("x-gateway-route-reason");
  return {
    type: "request_completed",
    requestId: facts.requestId ?? "",
    endpoint: facts.endpoint,
    requestedModel: facts.model ?? "",
    stream: facts.stream ?? false,
    priority: facts.priority ?? "normal",
    backend: facts.backend,
    model: facts.backendModel,
    routeReason: typeof reason === "string" ? reason : facts.routeReason,
    status,
    outcome: outcomeOf(facts, status),
    attempts: facts.attempts ?? 0,
    fallback: fallback !== undefined,
    queuedMs: facts.queuedMs ?? 0,
    durationMs,
    ttftMs: facts.ttftMs,
    promptTokens: facts.promptTokens,
    completionTokens: facts.completionTokens,
    costUsd: undefined,
  };
}
