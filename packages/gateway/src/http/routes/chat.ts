import type { IncomingMessage, ServerResponse } from "node:http";
import { chatJob } from "../../dispatch/chat.ts";
import type { Dispatchable } from "../../dispatch/pipeline.ts";
import { modelNotFound, noAvailableBackend } from "../../dispatch/route-errors.ts";
import type { BackendState } from "../../fleet/backend-state.ts";
import { countPromptTokens } from "../../policy/tokens.ts";
import type { JsonBody } from "../../request/body.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import { factsOf } from "../../request/facts.ts";
import { chatRequirements } from "../../routing/requirements.ts";
import type { RouteDecision } from "../../routing/types.ts";
import { setBudgetHeaders } from "../budget-headers.ts";
import type { GatewayContext } from "../context.ts";
import { decideOnceProbed } from "../decide-once-probed.ts";
import { answeringFailures, type ModelRouteServer } from "../model-route.ts";
import { routeControls } from "../route-controls.ts";
import { answerDispatch, sendRawError } from "../send.ts";
import { traceparentOf } from "../traceparent.ts";
import { validateChat } from "../validate-chat.ts";

/** POST /v1/chat/completions: validate, route, dispatch (streaming or not; queued when every backend is full). */
export function chatServer(context: GatewayContext): ModelRouteServer {
  const { router, registry, events, pipeline, logger, firstRound } = context;
  // Not an async function: the ordinary request never waits before its dispatch, and an async function's promise
  // (and its adopting the dispatch's) were two promises and three microtask jobs more per request.
  const start = (
    requestId: string,
    request: IncomingMessage,
    res: ServerResponse,
    parsed: JsonBody | undefined,
  ): Promise<void> | undefined => {
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
    const refuse = (error: ApiError, extra?: Record<string, string>): undefined => {
      sendRawError(res, error, requestId, extra);
      return undefined;
    };
    if (parsed === undefined) return refuse(invalidRequest("Request body is required", null, "invalid_json"));
    const body = validateChat(parsed.value);
    if (body instanceof ApiError) return refuse(body);
    const requirements = chatRequirements(body);
    const route = () => router.decide(requested, requirements, registry, controls);
    const dispatchOn = (decision: RouteDecision<BackendState>): Promise<void> | undefined => {
      if (decision.outcome === "unknown_model") return refuse(modelNotFound(requested, decision.available));
      if (decision.outcome === "unavailable") {
        const { error, headers: extra } = noAvailableBackend(requested, decision, "chat completions");
        return refuse(error, extra);
      }
      // The BPE count (what a cloud call will be billed on) only when a cloud backend may serve; else the rough one.
      if (mayUseCloud(decision)) return countPromptTokens(body).then((tokens) => dispatchWith(decision, tokens));
      return dispatchWith(decision, requirements.estimatedTokens);
    };
    const dispatchWith = (decision: Dispatchable, estimatedTokens: number) => {
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
      return answerDispatch(dispatch, res, requestId, logger);
    };
    const decision = decideOnceProbed(route, firstRound);
    return decision instanceof Promise ? decision.then(dispatchOn) : dispatchOn(decision);
  };
  const serve: ModelRouteServer = (requestId, request, res, parsed) => {
    try {
      return start(requestId, request, res, parsed) ?? SERVED;
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return answeringFailures(logger, serve);
}

/** What a request answered at once (refused) was served with. */
const SERVED: Promise<void> = Promise.resolve();

/** Whether a backend that may serve (now, or after waiting for a slot) is a cloud one. */
function mayUseCloud(decision: RouteDecision): boolean {
  const targets =
    decision.outcome === "route" ? decision.targets : decision.outcome === "at_capacity" ? decision.blocked : [];
  return targets.some((target) => target.backend.settings.kind === "cloud");
}
