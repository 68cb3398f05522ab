import type { FastifyInstance } from "fastify";
import { embeddingsJob } from "../../dispatch/embeddings.ts";
import { modelNotFound, noAvailableBackend } from "../../dispatch/route-errors.ts";
import type { JsonBody } from "../../request/body.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import { factsOf } from "../../request/facts.ts";
import { embeddingsRequirements } from "../../routing/requirements.ts";
import { setBudgetHeaders } from "../budget-headers.ts";
import type { GatewayContext } from "../context.ts";
import { routeControls } from "../route-controls.ts";
import { answerDispatch, sendError } from "../send.ts";
import { traceparentOf } from "../traceparent.ts";
import { validateEmbeddings } from "../validate-embeddings.ts";

/** POST /v1/embeddings: routed only to backends whose model produces embeddings; never substituted by another model. */
export function registerEmbeddingsRoute(app: FastifyInstance, context: GatewayContext): void {
  const { router, registry, events, pipeline } = context;
  app.post("/v1/embeddings", async (request, reply) => {
    setBudgetHeaders(reply.raw, context.budget);
    // A different embedding model yields vectors in another space: flexible substitution never applies here.
    const { priority } = routeControls(request.headers);
    const parsed = request.body as JsonBody | undefined;
    const value = parsed?.value as Record<string, unknown> | undefined;
    const requestId = String(request.id);
    const requested = typeof value?.["model"] === "string" ? value["model"] : "";
    Object.assign(factsOf(request.raw), { model: requested, stream: false, priority });
    events.emit({
      type: "request_received",
      requestId,
      traceparent: traceparentOf(request.headers),
      endpoint: "embeddings",
      requestedModel: requested,
      stream: false,
      priority,
    });
    if (parsed === undefined) return sendError(reply, invalidRequest("Request body is required", null, "invalid_json"));
    const input = validateEmbeddings(parsed.value);
    if (input instanceof ApiError) return sendError(reply, input);
    const requirements = embeddingsRequirements(input.input);
    const route = () => router.decide(input.model, requirements, registry);
    const decision = route();
    if (decision.outcome === "unknown_model") return sendError(reply, modelNotFound(input.model, decision.available));
    if (decision.outcome === "unavailable") {
      const { error, headers } = noAvailableBackend(input.model, decision, "embeddings");
      return sendError(reply, error, headers);
    }
    reply.hijack();
    const job = embeddingsJob({
      requestId,
      traceparent: traceparentOf(request.headers),
      facts: factsOf(request.raw),
      requestedModel: input.model,
      priority,
      body: parsed.value as Record<string, unknown>,
      raw: parsed.raw,
      slim: parsed.slim,
      input: input.input,
      encodingFormat: input.encodingFormat,
      estimatedTokens: requirements.estimatedTokens,
      prices: context.prices,
      route,
    });
    const dispatch = pipeline.run(job, decision, reply.raw);
    factsOf(request.raw).dispatch = dispatch;
    await answerDispatch(dispatch, reply.raw, requestId, context.logger);
  });
}
