import type { FastifyInstance } from "fastify";
import { chatJob } from "../../dispatch/chat.ts";
import { modelNotFound, noAvailableBackend } from "../../dispatch/route-errors.ts";
import { countPromptTokens } from "../../policy/tokens.ts";
import type { JsonBody } from "../../request/body.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import { factsOf } from "../../request/facts.ts";
import { chatRequirements } from "../../routing/requirements.ts";
import type { RouteDecision } from "../../routing/types.ts";
import { setBudgetHeaders } from "../budget-headers.ts";
import type { GatewayContext } from "../context.ts";
import { routeControls } from "../route-controls.ts";
import { answerDispatch, sendError } from "../send.ts";
import { traceparentOf } from "../traceparent.ts";
import { validateChat } from "../validate-chat.ts";

/** POST /v1/chat/completions: validate, route, dispatch (streaming or not; queued when every backend is full). */
export function registerChatRoute(app: FastifyInstance, context: GatewayContext): void {
  const { router, registry, events, pipeline } = context;
  app.post("/v1/chat/completions", async (request, reply) => {
    setBudgetHeaders(reply.raw, context.budget);
    const controls = routeControls(request.headers);
    const parsed = request.body as JsonBody | undefined;
    const value = parsed?.value as Record<string, unknown> | undefined;
    const requested = typeof value?.["model"] === "string" ? value["model"] : "";
    const stream = value?.["stream"] === true;
    const requestId = String(request.id);
    Object.assign(factsOf(request.raw), { model: requested, stream, priority: controls.priority });
    events.emit({
      type: "request_received",
      requestId,
      traceparent: traceparentOf(request.headers),
      endpoint: "chat",
      requestedModel: requested,
      stream,
      priority: controls.priority,
    });
    if (parsed === undefined) return sendError(reply, invalidRequest("Request body is required", null, "invalid_json"));
    const body = validateChat(parsed.value);
    if (body instanceof ApiError) return sendError(reply, body);
    const requirements = chatRequirements(body);
    const route = () => router.decide(requested, requirements, registry, controls);
    const decision = route();
    if (decision.outcome === "unknown_model") return sendError(reply, modelNotFound(requested, decision.available));
    if (decision.outcome === "unavailable") {
      const { error, headers } = noAvailableBackend(requested, decision, "chat completions");
      return sendError(reply, error, headers);
    }
    // The BPE count (what a cloud call will be billed on) only when a cloud backend may serve; else the rough one.
    const estimatedTokens = mayUseCloud(decision) ? await countPromptTokens(body) : requirements.estimatedTokens;
    reply.hijack();
    const maxTokens = body.max_tokens;
    const job = chatJob({
      requestId,
      traceparent: traceparentOf(request.headers),
      facts: factsOf(request.raw),
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
    const dispatch = pipeline.run(job, decision, reply.raw);
    factsOf(request.raw).dispatch = dispatch;
    // Returned, not awaited: an async function waiting for a stream's end would hold its whole frame (the parsed
    // body, the decision, everything above) for as long as the stream lasts.
    return answerDispatch(dispatch, reply.raw, requestId, context.logger);
  });
}

/** Whether a backend that may serve (now, or after waiting for a slot) is a cloud one. */
function mayUseCloud(decision: RouteDecision): boolean {
  const targets =
    decision.outcome === "route" ? decision.targets : decision.outcome === "at_capacity" ? decision.blocked : [];
  return targets.some((target) => target.backend.settings.kind === "cloud");
}
