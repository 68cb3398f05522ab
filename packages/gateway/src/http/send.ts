import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import type { Logger } from "pino";
import { sendApiError } from "../dispatch/failure.ts";
import { ApiError } from "./errors.ts";

/** Sends an ApiError in the envelope, with the request id. */
export function sendError(reply: FastifyReply, error: ApiError, headers: Record<string, string> = {}): void {
  reply
    .code(error.statusCode)
    .header("x-request-id", String(reply.request.id))
    .headers(headers)
    .type("application/json; charset=utf-8")
    .send(JSON.stringify(error.body()));
}

/** Sends a JSON body with the request id. */
export function sendJson(reply: FastifyReply, body: unknown, status = 200): void {
  reply
    .code(status)
    .header("x-request-id", String(reply.request.id))
    .type("application/json; charset=utf-8")
    .send(JSON.stringify(body));
}

/**
 * Waits for a dispatch that owns a hijacked response. Should it fail unexpectedly, the client still gets an answer
 * (500 in the envelope, or the connection closed if the response had begun): no request is left hanging.
 */
export async function settleHijacked(
  run: Promise<void>,
  res: ServerResponse,
  requestId: string,
  logger: Logger,
): Promise<void> {
  try {
    await run;
  } catch (error) {
    logger.error({ err: error, requestId }, "dispatch failed");
    if (!res.headersSent)
      sendApiError(res, new ApiError(500, "Internal error", "server_error", "internal_error"), requestId);
    else res.destroy();
  }
}
