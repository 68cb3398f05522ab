import type { Endpoint, RequestFacts } from "../request/facts.ts";
import type { RequestCompleted } from "../telemetry/events.ts";

/** How the request ended, for a client who got `status` (499: it left before the answer was complete). */
function outcomeOf(facts: RequestFacts, status: number): RequestCompleted["outcome"] {
  if (status === 499) return "client_abort";
  if (!facts.attempts) return "rejected";
  if (facts.brokenStream || status >= 500) return "error";
  return status >= 400 ? "client_error" : "ok";
}

/** The `request_completed` event of a chat or embeddings request whose response is over. */
export function completedEvent(
  facts: RequestFacts,
  endpoint: Endpoint,
  status: number,
  durationMs: number,
): RequestCompleted {
  return {
    type: "request_completed",
    requestId: facts.requestId ?? "",
    endpoint,
    requestedModel: facts.model ?? "",
    stream: facts.stream ?? false,
    priority: facts.priority ?? "normal",
    backend: facts.backend,
    model: facts.backendModel,
    routeReason: facts.routeReason,
    status,
    outcome: outcomeOf(facts, status),
    attempts: facts.attempts ?? 0,
    fallback: facts.fallback ?? false,
    queuedMs: facts.queuedMs ?? 0,
    durationMs,
    ttftMs: facts.ttftMs,
    promptTokens: facts.promptTokens,
    completionTokens: facts.completionTokens,
    costUsd: undefined,
    ...(facts.keyName !== undefined ? { key: facts.keyName } : {}),
  };
}
