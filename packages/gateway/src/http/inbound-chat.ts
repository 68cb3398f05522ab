import type { FastifyReply, FastifyRequest } from "fastify";
import type { NativeApi } from "../backends/types.ts";
import type { AnswerDialect } from "../dispatch/answer-dialect.ts";
import { chatJob, type NativeRequest } from "../dispatch/chat.ts";
import { modelNotFound, noAvailableBackend } from "../dispatch/route-errors.ts";
import type { AnswerFormat } from "../inbound/translating-writer.ts";
import { TranslatingWriter } from "../inbound/translating-writer.ts";
import { countPromptTokens } from "../policy/tokens.ts";
import type { JsonBody } from "../request/body.ts";
import type { ChatBody } from "../request/chat.ts";
import { ApiError, invalidRequest } from "../request/errors.ts";
import { factsOf } from "../request/facts.ts";
import { chatRequirements } from "../routing/requirements.ts";
import type { Rejection, RouteDecision } from "../routing/types.ts";
import { setBudgetHeaders } from "./budget-headers.ts";
import type { GatewayContext } from "./context.ts";
import { decideOnceProbed } from "./decide-once-probed.ts";
import { routeControls } from "./route-controls.ts";
import { answerDispatch, sendError } from "./send.ts";
import { traceparentOf } from "./traceparent.ts";

/** A chat request of another API, translated by its inbound adapter. */
export interface InboundChat {
  /** The model as the client named it ("" when it named none). */
  model: string;
  stream: boolean;
  /** The pipeline's chat request, or why the request is refused. */
  body: ChatBody | ApiError;
  /** How the answer and the errors are written in the inbound API's format. */
  format: AnswerFormat;
  /** The request as the client wrote it, for the backends that speak its API (they answer the client as is). */
  native?: Omit<NativeRequest, "res"> | undefined;
  /** Set when only those backends can serve it: what the translation could not carry (the first such thing). */
  nativeOnly?: string | undefined;
}

/**
 * Runs another API's chat request through the one pipeline, exactly as POST /v1/chat/completions: the same events,
 * routing, queue, failover, budget and X-Gateway-* headers; only the body in and the answer out are the API's own.
 */
export async function dispatchInboundChat(
  request: FastifyRequest,
  reply: FastifyReply,
  context: GatewayContext,
  inbound: InboundChat,
): Promise<void> {
  const { router, registry, events, pipeline } = context;
  const envelope = inbound.format.envelope;
  setBudgetHeaders(reply.raw, context.budget);
  const controls = routeControls(request.headers);
  const requested = inbound.model;
  const requestId = String(request.id);
  // The other APIs' routes are model requests too: their completion is an event (stats, metrics, history).
  Object.assign(factsOf(request.raw), {
    endpoint: "chat",
    requestId,
    model: requested,
    stream: inbound.stream,
    priority: controls.priority,
  });
  events.emit({
    type: "request_received",
    requestId,
    traceparent: traceparentOf(request.headers),
    endpoint: "chat",
    requestedModel: requested,
    stream: inbound.stream,
    priority: controls.priority,
  });
  const body = inbound.body;
  if (body instanceof ApiError) return sendError(reply, body, {}, envelope);
  const requirements = chatRequirements(body);
  const nativeOnly = inbound.nativeOnly;
  if (nativeOnly !== undefined) requirements.api = inbound.native?.api;
  const route = () => router.decide(requested, requirements, registry, controls);
  const decision = await decideOnceProbed(route, context.firstRound);
  if (decision.outcome === "unknown_model") {
    return sendError(reply, modelNotFound(requested, decision.available), {}, envelope);
  }
  if (decision.outcome === "unavailable") {
    const api = requirements.api;
    if (nativeOnly !== undefined && api !== undefined && decision.rejections.every(isApiRejection)) {
      return sendError(reply, untranslatable(nativeOnly, api, requested), {}, envelope);
    }
    const { error, headers } = noAvailableBackend(requested, decision, "chat completions");
    return sendError(reply, error, headers, envelope);
  }
  const estimatedTokens = mayUseCloud(decision) ? await countPromptTokens(body) : requirements.estimatedTokens;
  reply.hijack();
  const job = chatJob({
    requestId,
    traceparent: traceparentOf(request.headers),
    facts: factsOf(request.raw),
    requestedModel: requested,
    priority: controls.priority,
    body,
    raw: undefined,
    native: inbound.native && { ...inbound.native, res: reply.raw },
    stream: inbound.stream,
    estimatedTokens,
    maxTokens: typeof body.max_tokens === "number" ? body.max_tokens : undefined,
    prices: context.prices,
    route,
  });
  const writer = new TranslatingWriter(reply.raw, inbound.format, requested, inbound.stream);
  const dispatch = pipeline.run(job, decision, reply.raw, writer);
  factsOf(request.raw).dispatch = dispatch;
  await answerDispatch(dispatch, reply.raw, requestId, context.logger, envelope);
}

/** Whether a backend that may serve (now, or after waiting for a slot) is a cloud one. */
function mayUseCloud(decision: RouteDecision): boolean {
  const targets =
    decision.outcome === "route" ? decision.targets : decision.outcome === "at_capacity" ? decision.blocked : [];
  return targets.some((target) => target.backend.settings.kind === "cloud");
}

const isApiRejection = (rejection: Rejection) => rejection.reason === "api_unsupported";

/** A request as its client wrote it, for the backends that speak its API (they answer the client as is). */
export function asWritten(
  api: NativeApi,
  path: string,
  json: JsonBody | undefined,
  dialect: AnswerDialect,
  headers: Readonly<Record<string, string>> = {},
): Omit<NativeRequest, "res"> {
  return { api, path, value: (json?.value ?? {}) as Record<string, unknown>, raw: json?.raw, headers, dialect };
}

/** 400: what the request holds only backends of its own API take, and none of the model's backends is one. */
function untranslatable(what: string, api: NativeApi, requested: string): ApiError {
  return invalidRequest(
    `${what} can only go to a backend that speaks ${api}, and no backend of model '${requested}' does`,
    null,
    "untranslatable_request",
  );
}
