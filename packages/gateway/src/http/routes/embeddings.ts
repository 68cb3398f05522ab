import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import { embeddingsJob } from "../../dispatch/embeddings.ts";
import { modelNotFound, noAvailableBackend } from "../../dispatch/route-errors.ts";
import type { JsonBody } from "../../request/body.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import { factsOf } from "../../request/facts.ts";
import { embeddingsRequirements } from "../../routing/requirements.ts";
import { setBudgetHeaders } from "../budget-headers.ts";
import type { GatewayContext } from "../context.ts";
import type { ModelRouteServer } from "../model-route.ts";
import { routeControls } from "../route-controls.ts";
import { answerDispatch, failRequest, sendRawError } from "../send.ts";
import { traceparentOf } from "../traceparent.ts";
import { validateEmbeddings } from "../validate-embeddings.ts";

/** POST /v1/embeddings through fastify: the requests fast-model-routes.ts did not take. */
export function registerEmbeddingsRoute(app: FastifyInstance, serve: ModelRouteServer): void {
  app.post("/v1/embeddings", (request, reply) => {
    reply.hijack();
    return serve(String(request.id), request.raw, reply.raw, request.body as JsonBody | undefined);
  });
}

/** Routed only to backends whose model produces embeddings; never substituted by another model. */
export function embeddingsServer(context: GatewayContext): ModelRouteServer {
  const { router, registry, events, pipeline, logger } = context;
  const serve = async (
    requestId: string,
    request: IncomingMessage,
    res: ServerResponse,
    parsed: JsonBody | undefined,
  ) => {
    setBudgetHeaders(res, context.budget);
    // A different embedding model yields vectors in another space: flexible substitution never applies here.
    const { priority } = routeControls(request.headers);
    const value = parsed?.value as Record<string, unknown> | undefined;
    const requested = typeof value?.["model"] === "string" ? value["model"] : "";
    const facts = factsOf(request);
    facts.model = requested;
    facts.stream = false;
    facts.priority = priority;
    const traceparent = traceparentOf(request.headers);
    events.emit({
      type: "request_received",
      requestId,
      traceparent,
      endpoint: "embeddings",
      requestedModel: requested,
      stream: false,
      priority,
    });
    const refuse = (error: ApiError, extra?: Record<string, string>) => sendRawError(res, error, requestId, extra);
    if (parsed === undefined) return refuse(invalidRequest("Request body is required", null, "invalid_json"));
    const input = validateEmbeddings(parsed.value);
    if (input instanceof ApiError) return refuse(input);
    const requirements = embeddingsRequirements(input.input);
    const route = () => router.decide(input.model, requirements, registry);
    const decision = route();
    if (decision.outcome === "unknown_model") return refuse(modelNotFound(input.model, decision.available));
    if (decision.outcome === "unavailable") {
      const { error, headers } = noAvailableBackend(input.model, decision, "embeddings");
      return refuse(error, headers);
    }
    const job = embeddingsJob({
      requestId,
      traceparent,
      facts,
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
    const dispatch = pipeline.run(job, decision, res);
    facts.dispatch = dispatch;
    return answerDispatch(dispatch, res, requestId, logger);
  };
  return (requestId, request, res, parsed) =>
    serve(requestId, request, res, parsed).catch((error: unknown) => failRequest(res, requestId, logger, error));
}
