import type { BackendState } from "../fleet/backend-state.ts";
import type { PriceTable } from "../policy/pricing.ts";
import type { JsonBody } from "../request/body.ts";
import type { ChatBody } from "../request/chat.ts";
import type { RequestFacts } from "../request/facts.ts";
import type { RouteDecision } from "../routing/types.ts";
import type { Priority } from "../telemetry/events.ts";
import { ChatAttempt } from "./chat-attempt.ts";
import type { DispatchJob } from "./pipeline.ts";
import { bodyWithModel } from "./rewrite-body.ts";
import { routeHeaders } from "./route-headers.ts";

export interface ChatRequest {
  requestId: string;
  /** The client's W3C trace context, forwarded to the backend. */
  traceparent?: string | undefined;
  facts?: RequestFacts | undefined;
  requestedModel: string;
  priority: Priority;
  /**
   * The parsed client body, and the bytes it came from (forwarded as is when the model name is unchanged); no bytes
   * when an inbound adapter built the body from another API's request.
   */
  body: ChatBody;
  raw: Buffer | undefined;
  /** Fields only a backend type understands (Anthropic's `thinking`), added to the body sent to that type alone. */
  fieldsFor?: ((backendType: string) => Record<string, unknown> | undefined) | undefined;
  /** Set when the body's long texts stayed in the parse worker (see JsonBody). */
  slim?: JsonBody["slim"];
  stream: boolean;
  estimatedTokens: number;
  maxTokens: number | undefined;
  /** Prices cloud answers for X-Gateway-Cost-Estimated. */
  prices: PriceTable;
  route(): RouteDecision<BackendState>;
}

/**
 * A chat completion as a pipeline job: each attempt sends the body (with the target's model) to the backend and relays
 * its answer, failing over before the first byte (see ChatAttempt).
 */
export function chatJob(request: ChatRequest): DispatchJob {
  return {
    endpoint: "chat",
    requestId: request.requestId,
    facts: request.facts,
    requestedModel: request.requestedModel,
    stream: request.stream,
    priority: request.priority,
    what: "chat completions",
    route: request.route,
    attempt(target, reason, res) {
      const extra = request.fieldsFor?.(target.backend.settings.type);
      const chat = extra === undefined ? request.body : { ...request.body, ...extra };
      const body = bodyWithModel(chat, extra === undefined ? request.raw : undefined, target.model, request.slim);
      const { headers, prepared } = routeHeaders(
        target,
        reason,
        request.requestId,
        request.estimatedTokens,
        request.maxTokens,
        request.prices,
      );
      const attempt = new ChatAttempt({
        backend: target.backend.name,
        stream: request.stream,
        headers,
        prepared,
        res,
      });
      const parsed = { body: chat, model: target.model };
      const ids = { requestId: request.requestId, traceparent: request.traceparent };
      attempt.call = target.backend.backend.chat(body, ids, attempt, parsed);
      return attempt;
    },
  };
}
