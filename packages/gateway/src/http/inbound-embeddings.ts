import type { FastifyReply, FastifyRequest } from "fastify";
import { embeddingsJob } from "../dispatch/embeddings.ts";
import { modelNotFound, noAvailableBackend } from "../dispatch/route-errors.ts";
import { type AnswerFormat, TranslatingWriter } from "../inbound/translating-writer.ts";
import { ApiError } from "../request/errors.ts";
import { factsOf } from "../request/facts.ts";
import { embeddingsRequirements } from "../routing/requirements.ts";
import { setBudgetHeaders } from "./budget-headers.ts";
import type { GatewayContext } from "./context.ts";
import { decideOnceProbed } from "./decide-once-probed.ts";
import { routeControls } from "./route-controls.ts";
import { answerDispatch, sendError } from "./send.ts";
import { traceparentOf } from "./traceparent.ts";
import { validateEmbeddings } from "./validate-embeddings.ts";

/** An embeddings request of another API, translated by its inbound adapter. */
export interface InboundEmbeddings<Body> {
  model: string;
  /** The pipeline's request (an OpenAI embeddings body), or why the request is refused. */
  body: Record<string, unknown> | ApiError;
  format: AnswerFormat<Body>;
}

/** Runs another API's embeddings request through the one pipeline, as POST /v1/embeddings does. */
export async function dispatchInboundEmbeddings<Body>(
  request: FastifyRequest,
  reply: FastifyReply,
  context: GatewayContext,
  inbound: InboundEmbeddings<Body>,
): Promise<void> {
  const { router, registry, events, pipeline } = context;
  const envelope = inbound.format.envelope;
  setBudgetHeaders(reply.raw, context.budget);
  const { priority } = routeControls(request.headers);
  const requestId = String(request.id);
  const requested = inbound.model;
  Object.assign(factsOf(request.raw), { endpoint: "embeddings", requestId, model: requested, stream: false, priority });
  events.emit({
    type: "request_received",
    requestId,
    traceparent: traceparentOf(request.headers),
    endpoint: "embeddings",
    requestedModel: requested,
    stream: false,
    priority,
  });
  const body = inbound.body;
  if (body instanceof ApiError) return sendError(reply, body, {}, envelope);
  const input = validateEmbeddings(body);
  if (input instanceof ApiError) return sendError(reply, input, {}, envelope);
  const requirements = embeddingsRequirements(input.input);
  const route = () => router.decide(input.model, requirements, registry);
  const decision = await decideOnceProbed(route, context.firstRound);
  if (decision.outcome === "unknown_model") {
    return sendError(reply, modelNotFound(input.model, decision.available), {}, envelope);
  }
  if (decision.outcome === "unavailable") {
    const { error, headers } = noAvailableBackend(input.model, decision, "embeddings");
    return sendError(reply, error, headers, envelope);
  }
  reply.hijack();
  const job = embeddingsJob({
    requestId,
    traceparent: traceparentOf(request.headers),
    facts: factsOf(request.raw),
    requestedModel: input.model,
    priority,
    body,
    raw: undefined,
    input: input.input,
    encodingFormat: undefined,
    estimatedTokens: requirements.estimatedTokens,
    prices: context.prices,
    route,
  });
  const writer = new TranslatingWriter(reply.raw, inbound.format, requested, false);
  const dispatch = pipeline.run(job, decision, reply.raw, writer);
  factsOf(request.raw).dispatch = dispatch;
  await answerDispatch(dispatch, reply.raw, requestId, context.logger, envelope);
}
