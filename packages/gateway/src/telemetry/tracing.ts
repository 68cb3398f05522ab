import { propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import type { Registry } from "../fleet/registry.ts";
import type { EventBus, EventOf } from "./events.ts";

/** Requests traced at once at most: beyond, new ones are not traced (never unbounded memory). */
const MAX_OPEN_SPANS = 100_000;

const operationName = (endpoint: string) => (endpoint === "chat" ? "chat" : "embeddings");

/**
 * OpenTelemetry tracing built on the event stream: a server span per request and a client span per attempt (a
 * failover shows as two), named and attributed per the GenAI semantic conventions (`gen_ai.*`). Only subscribed when
 * `[tracing] enabled = true`, so the hot path pays nothing when it is off; spans go wherever the OpenTelemetry SDK the
 * operator loads (`node --import`) sends them, and nowhere when none is loaded. Returns the unsubscribe function.
 */
export function traceRequests(
  events: EventBus,
  registry: Registry,
  tracer: Tracer = trace.getTracer("switchboard-gateway"),
): () => void {
  const requests = new Map<string, Span>();
  const attempts = new Map<string, Span>();
  const attemptKey = (requestId: string, attempt: number) => `${requestId}#${attempt}`;
  // A backend's type, host and port, parsed once per backend rather than once per attempt.
  const servers = new Map<string, { type: string; address: string; port: number }>();
  const serverOf = (backend: string) => {
    let server = servers.get(backend);
    if (!server) {
      const settings = registry.get(backend)?.settings;
      const url = settings ? new URL(settings.url) : undefined;
      server = {
        type: settings?.type ?? "unknown",
        address: url?.hostname ?? "",
        port: url ? Number(url.port || (url.protocol === "https:" ? 443 : 80)) : 0,
      };
      servers.set(backend, server);
    }
    return server;
  };

  const subscriptions = [
    events.on("request_received", (event) => {
      if (requests.size >= MAX_OPEN_SPANS) return;
      const operation = operationName(event.endpoint);
      // The client's trace continues here when it sent a traceparent (through the SDK's registered propagator).
      const parent = event.traceparent
        ? propagation.extract(ROOT_CONTEXT, { traceparent: event.traceparent })
        : ROOT_CONTEXT;
      const span = tracer.startSpan(
        `${operation} ${event.requestedModel}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            "gen_ai.operation.name": operation,
            "gen_ai.request.model": event.requestedModel,
            "switchboard.request_id": event.requestId,
            "switchboard.priority": event.priority,
            "switchboard.stream": event.stream,
          },
        },
        parent,
      );
      requests.set(event.requestId, span);
    }),
    events.on("attempt_started", (event) => {
      const parent = requests.get(event.requestId);
      if (!parent) return;
      const server = serverOf(event.backend);
      const span = tracer.startSpan(
        `${operationName(event.endpoint)} ${event.model}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            "gen_ai.operation.name": operationName(event.endpoint),
            "gen_ai.request.model": event.model,
            "gen_ai.provider.name": server.type,
            "server.address": server.address,
            "server.port": server.port,
            "switchboard.backend": event.backend,
            "switchboard.attempt": event.attempt,
          },
        },
        trace.setSpan(ROOT_CONTEXT, parent),
      );
      attempts.set(attemptKey(event.requestId, event.attempt), span);
    }),
    events.on("attempt_finished", (event) => endAttempt(event)),
    events.on("attempt_failed", (event) => endAttempt(event)),
    events.on("request_completed", (event) => {
      const span = requests.get(event.requestId);
      if (!span) return;
      requests.delete(event.requestId);
      span.setAttributes({
        "http.response.status_code": event.status,
        "switchboard.outcome": event.outcome,
        "switchboard.attempts": event.attempts,
      });
      if (event.model !== undefined) span.setAttribute("gen_ai.response.model", event.model);
      if (event.backend !== undefined) span.setAttribute("switchboard.backend", event.backend);
      if (event.routeReason !== undefined) span.setAttribute("switchboard.route_reason", event.routeReason);
      if (event.promptTokens !== undefined) span.setAttribute("gen_ai.usage.input_tokens", event.promptTokens);
      if (event.completionTokens !== undefined) span.setAttribute("gen_ai.usage.output_tokens", event.completionTokens);
      if (event.outcome === "error" || event.outcome === "rejected" || event.status >= 500) {
        span.setAttribute("error.type", String(event.status));
        span.setStatus({ code: SpanStatusCode.ERROR, message: `${event.outcome} (${event.status})` });
      }
      span.end();
    }),
  ];

  function endAttempt(event: EventOf<"attempt_finished"> | EventOf<"attempt_failed">): void {
    const key = attemptKey(event.requestId, event.attempt);
    const span = attempts.get(key);
    if (!span) return;
    attempts.delete(key);
    if (event.type === "attempt_failed") {
      span.setAttribute("error.type", event.errorKind);
      if (event.status !== undefined) span.setAttribute("http.response.status_code", event.status);
      span.setStatus({ code: SpanStatusCode.ERROR, message: event.message });
    } else if (event.status > 0) {
      span.setAttribute("http.response.status_code", event.status);
    }
    span.end();
  }

  return () => {
    for (const unsubscribe of subscriptions) unsubscribe();
    for (const span of [...attempts.values(), ...requests.values()]) span.end();
    attempts.clear();
    requests.clear();
  };
}
