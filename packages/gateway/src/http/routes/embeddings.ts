import type { FastifyInstance } from "fastify";
import { embeddingsRequirements } from "../../routing/requirements.ts";
import { setBudgetHeaders } from "../budget-headers.ts";
import type { GatewayContext, JsonBody } from "../context.ts";
import { ApiError, invalidRequest } from "../errors.ts";
import { factsOf } from "../request-log.ts";
import { modelNotFound, noAvailableBackend } from "../route-errors.ts";
import { sendError, settleHijacked } from "../send.ts";
import { validateEmbeddings } from "../validate-embeddings.ts";

/** POST /v1/embeddings: routed only to backends whose model produces embeddings. */
export function registerEmbeddingsRoute(app: FastifyInstance, context: GatewayContext): void {
  const { router, registry, stats, embeddings } = context;
  app.post("/v1/embeddings", async (request, reply) => {
    stats.totalRequests++;
    setBudgetHeaders(reply.raw, context.budget);
    const parsed = request.body as JsonBody | undefined;
    if (parsed === undefined) return sendError(reply, invalidRequest("Request body is required", null, "invalid_json"));
    const input = validateEmbeddings(parsed.value);
    if (input instanceof ApiError) return sendError(reply, input);
    const requirements = embeddingsRequirements(input.input);
    factsOf(request.raw).model = input.model;
    const decision = router.decide(input.model, requirements, registry);
    if (decision.outcome === "unknown_model") return sendError(reply, modelNotFound(input.model, decision.available));
    if (decision.outcome === "unavailable") {
      const { error, headers } = noAvailableBackend(input.model, decision, "embeddings");
      return sendError(reply, error, headers);
    }
    reply.hijack();
    const run = embeddings.run(
      {
        requestId: String(request.id),
        facts: factsOf(request.raw),
        body: parsed.value as Record<string, unknown>,
        raw: parsed.raw,
        input: input.input,
        encodingFormat: input.encodingFormat,
        targets: decision.targets,
        reason: decision.reason,
        estimatedTokens: requirements.estimatedTokens,
      },
      reply.raw,
    );
    await settleHijacked(run, reply.raw, String(request.id), context.logger);
  });
}
