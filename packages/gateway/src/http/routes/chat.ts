import { chatJob } from "../../dispatch/chat.ts";
import { modelNotFound, noAvailableBackend } from "../../dispatch/route-errors.ts";
import { countPromptTokens } from "../../policy/tokens.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import { factsOf } from "../../request/facts.ts";
import { chatRequirements } from "../../routing/requirements.ts";
import type { RouteDecision } from "../../routing/types.ts";
import { setBudgetHeaders } from "../budget-headers.ts";
import type { GatewayContext } from "../context.ts";
import { answeringFailures, type ModelRouteServer } from "../model-route.ts";
import { routeControls } from "../route-controls.ts";
import { answerDispatch, sendRawError } from "../send.ts";
import { traceparentOf } from "../traceparent.ts";
import { validateChat } from "../validate-chat.ts";

/** POST /v1/chat/completions: validate, route, dispatch (streaming or not; queued when every backend is full). */
export function chatServer(context: GatewayContext): ModelRouteServer {
  const { router, registry, events, pipeline, logger } = context;
  const serve: ModelRouteServer = async (requestId, request, res, parsed) => {
    setBudgetHeaders(res, context.budget);
    const headers = request.headers;
    const controls = routeControls(headers);
    const value = parsed?.value as Record<string, unknown> | undefined;
    const requested = typeof value?.["model"] === "string" ? value["model"] : "";
    const stream = value?.["stream"] === true;
    const facts = factsOf(request);
    facts.model = requested;
    facts.stream = stream;
    facts.priority = controls.priority;
    const traceparent = traceparentOf(headers);
    events.emit({
      type: "request_received",
      requestId,
      traceparent,
      endpoint: "chat",
      requestedModel: requested,
      stream,
      priority: controls.priority,
    });
    const refuse = (error: ApiError, extra?: Record<string, string>) => sendRawError(res, error, requestId, extra);
    if (parsed === undefined) return refuse(invalidRequest("Request body is required", null, "invalid_json"));
    const body = validateChat(parsed.value);
    if (body instanceof ApiError) return refuse(body);
    const requirements = chatRequirements(body);
    const route = () => router.decide(requested, requirements, registry, controls);
    const decision = route();
    if (decision.outcome === "unknown_model") return refuse(modelNotFound(requested, decision.available));
    if (decision.outcome === "unavailable") {
      const { error, headers: extra } = noAvailableBackend(requested, decision, "chat completions");
      return refuse(error, extra);
    }
    // The BPE count (what a cloud call will be billed on) only when a cloud backend may serve; else the rough one.
    const estimatedTokens = mayUseCloud(decision) ? await countPromptTokens(body) : requirements.estimatedTokens;
    const maxTokens = body.max_tokens;
    const job = chatJob({
      requestId,
      traceparent,
      facts,
      requestedModel: requested,
      priority: controls.priority,
      body,
      raw: parsed.raw,
      slim: parsed.slim,
      stream,
      estimatedTokens,
      maxTokens: typeof maxTokens === "number" ? maxTokens : undefined,
      prices: context.prices,
      route,
    });
    const dispatch = pipeline.run(job, decision, res);
    facts.dispatch = dispatch;
    // Returned, not awaited: an async function waiting for a stream's end would hold its whole frame (the parsed
    // body, the decision, everything above) for as long as the stream lasts.
    return answerDispatch(dispatch, res, requestId, logger);
  };
  return answeringFailures(logger, serve);
}

/** Whether a backend that may serve (now, or after waiting for a slot) is a cloud one. */
function mayUseCloud(decision: RouteDecision): boolean {
  const targets =
    decision.outcome === "route" ? decision.targets : decision.outcome === "at_capacity" ? decision.blocked : [];
  return targets.some((target) => target.backend.settings.kind === "cloud");
}
