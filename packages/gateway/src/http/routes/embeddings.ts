import { embeddingsJob } from "../../dispatch/embeddings.ts";
import { modelNotFound, noAvailableBackend } from "../../dispatch/route-errors.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import { factsOf } from "../../request/facts.ts";
import { embeddingsRequirements } from "../../routing/requirements.ts";
import { setBudgetHeaders } from "../budget-headers.ts";
import type { GatewayContext } from "../context.ts";
import { decideOnceProbed } from "../decide-once-probed.ts";
import { answeringFailures, type ModelRouteServer } from "../model-route.ts";
import { routeControls } from "../route-controls.ts";
import { answerDispatch, sendRawError } from "../send.ts";
import { traceparentOf } from "../traceparent.ts";
import { validateEmbeddings } from "../validate-embeddings.ts";

/** POST /v1/embeddings: routed only to backends whose model produces embeddings; never substituted by another model. */
export function embeddingsServer(context: GatewayContext): ModelRouteServer {
  const { router, registry, events, pipeline, logger } = context;
  const serve: ModelRouteServer = async (requestId, request, res, parsed) => {
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
    const decision = await decideOnceProbed(route, context.firstRound);
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
  return answeringFailures(logger, serve);
}
