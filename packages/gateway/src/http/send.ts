import type { FastifyReply } from "fastify";
import type { ApiError } from "./errors.ts";

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
