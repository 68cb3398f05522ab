import type { NativeApi } from "../backends/types.ts";
import type { BackendState } from "../fleet/backend-state.ts";
import type { PriceTable } from "../policy/pricing.ts";
import type { JsonBody } from "../request/body.ts";
import type { ChatBody } from "../request/chat.ts";
import type { RequestFacts } from "../request/facts.ts";
import type { RouteDecision } from "../routing/types.ts";
import type { Priority } from "../telemetry/events.ts";
import { type AnswerDialect, OPENAI_ANSWERS } from "./answer-dialect.ts";
import type { AnswerWriter } from "./answer-writer.ts";
import { ChatAttempt } from "./chat-attempt.ts";
import type { DispatchJob } from "./pipeline.ts";
import { bodyWithModel } from "./rewrite-body.ts";
import { routeHeaders } from "./route-headers.ts";

/**
 * A request of another API as its client wrote it: a backend that speaks that API gets it so (with its model name)
 * and its answer goes to the client as is; the others get `body`, the translation, as before.
 */
export interface NativeRequest {
  api: NativeApi;
  /** The endpoint of that API the client called. */
  path: string;
  /**
   * For an API that names the model in the path (Gemini's): the endpoint for the backend's model. The body is then
   * sent exactly as the client wrote it.
   */
  pathFor?: ((model: string) => string) | undefined;
  /** The client's body, and the bytes it came from (sent as they are when the model name is unchanged). */
  value: Record<string, unknown>;
  raw: Buffer | undefined;
  /** The client's headers the provider reads. */
  headers: Readonly<Record<string, string>>;
  /** The client's response itself (the answer needs no translation), and the answer's API. */
  res: AnswerWriter;
  dialect: AnswerDialect;
}

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
  /** The request in the client's own API, for the backends that speak it. */
  native?: NativeRequest | undefined;
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
      const ids = { requestId: request.requestId, traceparent: request.traceparent };
      const { headers, prepared } = routeHeaders(
        target,
        reason,
        request.requestId,
        request.estimatedTokens,
        request.maxTokens,
        request.prices,
      );
      const backend = target.backend.name;
      const stream = request.stream;
      const native = request.native;
      const speaks = native === undefined ? undefined : target.backend.backend.natives?.[native.api];
      if (native !== undefined && speaks !== undefined) {
        const { res: out, dialect } = native;
        const attempt = new ChatAttempt({ backend, stream, headers, prepared, res: out, dialect });
        const { pathFor } = native;
        const body =
          pathFor === undefined
            ? bodyWithModel(native.value, native.raw, target.model)
            : (native.raw ?? JSON.stringify(native.value));
        const path = pathFor === undefined ? native.path : pathFor(target.model);
        const call = { path, body, model: target.model, headers: native.headers };
        attempt.call = speaks.chat(call, ids, attempt);
        return attempt;
      }
      const attempt = new ChatAttempt({ backend, stream, headers, prepared, res, dialect: OPENAI_ANSWERS });
      const body = bodyWithModel(request.body, request.raw, target.model, request.slim);
      attempt.call = target.backend.backend.chat(body, ids, attempt, { body: request.body, model: target.model });
      return attempt;
    },
  };
}
