import type { BackendState } from "../fleet/backend-state.ts";
import type { PriceTable } from "../policy/pricing.ts";
import type { JsonBody } from "../request/body.ts";
import type { EmbeddingText } from "../request/embeddings.ts";
import type { RequestFacts } from "../request/facts.ts";
import type { RouteDecision } from "../routing/types.ts";
import type { Priority } from "../telemetry/events.ts";
import { EmbeddingsAttempt } from "./embeddings-attempt.ts";
import type { DispatchJob } from "./pipeline.ts";
import { bodyWithModel } from "./rewrite-body.ts";
import { routeHeaders } from "./route-headers.ts";

export interface EmbeddingsRequest {
  requestId: string;
  /** The client's W3C trace context, forwarded to the backend. */
  traceparent?: string | undefined;
  facts?: RequestFacts | undefined;
  requestedModel: string;
  priority: Priority;
  body: Record<string, unknown>;
  /** The client's bytes; none when an inbound adapter built the body from another API's request. */
  raw: Buffer | undefined;
  /** Set when the input's long texts stayed in the parse worker (see JsonBody). */
  slim?: JsonBody["slim"];
  input: EmbeddingText | EmbeddingText[];
  encodingFormat: "float" | "base64" | undefined;
  estimatedTokens: number;
  /** Prices cloud answers for X-Gateway-Cost-Estimated. */
  prices: PriceTable;
  route(): RouteDecision<BackendState>;
}

/** An embeddings request as a pipeline job: same failover rules as chat (5xx, 429, unreachable → next backend). */
export function embeddingsJob(request: EmbeddingsRequest): DispatchJob {
  const dimensions = request.body["dimensions"];
  return {
    endpoint: "embeddings",
    requestId: request.requestId,
    facts: request.facts,
    requestedModel: request.requestedModel,
    stream: false,
    priority: request.priority,
    what: "embeddings",
    route: request.route,
    attempt(target, reason, res) {
      const body = bodyWithModel(request.body, request.raw, target.model, request.slim);
      const answerHeaders = routeHeaders(
        target,
        reason,
        request.requestId,
        request.estimatedTokens,
        undefined,
        request.prices,
      );
      const call = {
        model: target.model,
        input: request.input,
        encodingFormat: request.encodingFormat,
        dimensions: typeof dimensions === "number" ? dimensions : undefined,
        body,
        inputJson: () => inputJson(request),
      };
      const ids = { requestId: request.requestId, traceparent: request.traceparent };
      return new EmbeddingsAttempt(target.backend, call, ids, answerHeaders, res);
    },
  };
}

/** The input value as JSON: its bytes in the client's body when its texts stayed in the parse worker. */
function inputJson(request: EmbeddingsRequest): string | Buffer {
  const range = request.slim?.inputRange;
  const raw = request.raw;
  if (raw === undefined) return JSON.stringify(request.input);
  if (range !== undefined) return raw.subarray(range[0], range[1]);
  // Not expected for a slim body (the worker finds "input" in any valid one); correct, at the cost of parsing here.
  if (request.slim !== undefined) return JSON.stringify((JSON.parse(raw.toString("utf8")) as { input: unknown }).input);
  return JSON.stringify(request.input);
}
