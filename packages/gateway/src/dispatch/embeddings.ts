import type { BackendState } from "../fleet/backend-state.ts";
import type { RequestFacts } from "../http/request-facts.ts";
import type { RouteDecision } from "../routing/types.ts";
import type { Priority } from "../telemetry/events.ts";
import { EmbeddingsAttempt } from "./embeddings-attempt.ts";
import type { DispatchJob } from "./pipeline.ts";
import { bodyWithModel } from "./rewrite-body.ts";
import { routeHeaders } from "./route-headers.ts";

export interface EmbeddingsRequest {
  requestId: string;
  facts?: RequestFacts | undefined;
  requestedModel: string;
  priority: Priority;
  body: Record<string, unknown>;
  raw: Buffer;
  input: string | string[];
  encodingFormat: "float" | "base64" | undefined;
  estimatedTokens: number;
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
      const json = bodyWithModel(request.body, request.raw, target.model);
      const headers = routeHeaders(target, reason, request.requestId, request.estimatedTokens, undefined);
      const call = {
        model: target.model,
        input: request.input,
        encodingFormat: request.encodingFormat,
        dimensions: typeof dimensions === "number" ? dimensions : undefined,
        json: String(json),
      };
      return new EmbeddingsAttempt(target.backend, call, request.requestId, headers, res);
    },
  };
}
