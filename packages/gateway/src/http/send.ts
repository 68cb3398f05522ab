// Every answer the gateway itself writes goes out through here: the error envelope built once, for a Fastify reply
// or a raw (hijacked) response alike, and the dispatch pipeline's outcomes turned into answers.
import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import type { Logger } from "pino";
import { attemptsFailedAnswer } from "../dispatch/failure.ts";
import type { DispatchOutcome } from "../dispatch/outcome.ts";
import { ApiError, type ErrorEnvelope, openAiEnvelope } from "../request/errors.ts";

const JSON_TYPE = "application/json; charset=utf-8";

/** Sends an ApiError in the envelope (OpenAI's, or the inbound API's), with the request id. */
export function sendError(
  reply: FastifyReply,
  error: ApiError,
  headers: Record<string, string> = {},
  envelope: ErrorEnvelope = openAiEnvelope,
): void {
  const { status, body } = envelope(error);
  reply
    .code(status)
    .header("x-request-id", String(reply.request.id))
    .headers(headers)
    .type(JSON_TYPE)
    .send(JSON.stringify(body));
}

/** Writes an ApiError on a raw (hijacked) response. */
export function sendRawError(
  res: ServerResponse,
  error: ApiError,
  requestId: string,
  headers: Record<string, string> = {},
  envelope: ErrorEnvelope = openAiEnvelope,
): void {
  const { status, body } = envelope(error);
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": JSON_TYPE,
    "content-length": Buffer.byteLength(payload),
    "x-request-id": requestId,
  });
  res.end(payload);
}

/** Sends a JSON body with the request id. */
export function sendJson(reply: FastifyReply, body: unknown, status = 200): void {
  reply.code(status).header("x-request-id", String(reply.request.id)).type(JSON_TYPE).send(JSON.stringify(body));
}

/**
 * Answers what the pipeline did not: a refusal in the envelope, failed attempts as a 502/504 (or the 429 relayed: as
 * it is to OpenAI clients, in its own envelope to another API's).
 */
function answerOutcome(
  outcome: DispatchOutcome,
  res: ServerResponse,
  requestId: string,
  envelope: ErrorEnvelope,
): void {
  if (outcome.kind === "done" || res.headersSent || res.destroyed) return;
  if (outcome.kind === "refused") {
    sendRawError(res, outcome.error, requestId, outcome.headers, envelope);
    return;
  }
  const answer = attemptsFailedAnswer(outcome.failures);
  if (answer instanceof ApiError) {
    sendRawError(res, answer, requestId, {}, envelope);
    return;
  }
  if (envelope !== openAiEnvelope) {
    const limited = new ApiError(429, "Every backend is rate limited; retry later", "rate_limit_error", "rate_limited");
    sendRawError(res, limited, requestId, {}, envelope);
    return;
  }
  res.writeHead(answer.status, {
    "content-type": answer.contentType,
    "content-length": answer.body.length,
    "x-request-id": requestId,
  });
  res.end(answer.body);
}

/**
 * Waits for a dispatch that owns a hijacked response and answers its outcome. Should it fail unexpectedly, the client
 * still gets an answer (500 in the envelope, or the connection closed if the response had begun): no request is left
 * hanging.
 */
export function answerDispatch(
  run: Promise<DispatchOutcome>,
  res: ServerResponse,
  requestId: string,
  logger: Logger,
  envelope: ErrorEnvelope = openAiEnvelope,
): Promise<void> {
  // One reaction on the run, not an async function around it (a promise and a resumption fewer per request).
  const fail = (error: unknown) => failRequest(res, requestId, logger, error, envelope);
  return run.then((outcome) => {
    try {
      answerOutcome(outcome, res, requestId, envelope);
    } catch (error) {
      fail(error);
    }
  }, fail);
}

/** An unexpected failure of a route that owns its raw response: a 500 in the envelope, or the connection closed. */
export function failRequest(
  res: ServerResponse,
  requestId: string,
  logger: Logger,
  error: unknown,
  envelope: ErrorEnvelope = openAiEnvelope,
): void {
  logger.error({ err: error, requestId }, "request failed");
  if (!res.headersSent)
    sendRawError(res, new ApiError(500, "Internal error", "server_error", "internal_error"), requestId, {}, envelope);
  else res.destroy();
}
