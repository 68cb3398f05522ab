// Every error a client can see is {"message": "..."} with a designed status, including the ones Node and fastify
// raise before a route runs (bad request lines, bad URLs, oversized headers, timeouts, CONNECT, too many connections).

import type { FastifyError, FastifyReply } from "fastify";
import { errorBody } from "../../http/raw-answer.ts";
import { BodyTooLargeError, discardRestOfBody } from "./body-reader.ts";

// Answers on a raw socket are shared with the status endpoint's server.
export { answerOnSocket, describeClientError } from "../../http/raw-answer.ts";

const JSON_TYPE = "application/json; charset=utf-8";

export const UNSUPPORTED_MEDIA_TYPE =
  "unsupported Content-Type: send the body as application/json or application/x-www-form-urlencoded";

export function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  // A body the route did not read is discarded (bounded), so the client can read this answer.
  discardRestOfBody(reply.request.raw);
  return reply.code(status).type(JSON_TYPE).send(errorBody(message));
}

/** The over-limit message names the setting to change and its value. */
function bodyTooLargeMessage(accountId: string, limit: number): string {
  return `body too large: BodyLimit is ${limit} bytes for [${accountId}]; send less, or raise BodyLimit in [${accountId}]`;
}

/** Maps fastify's own errors (body parsing, limits, bad URLs) to designed answers; anything else is a 500 without details. */
export function describeFastifyError(
  error: FastifyError | Error,
  accountId: string,
): { status: number; message: string } {
  if (error instanceof BodyTooLargeError) return { status: 413, message: bodyTooLargeMessage(accountId, error.limit) };
  const code = "code" in error ? error.code : undefined;
  switch (code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_TYPE":
      return { status: 415, message: UNSUPPORTED_MEDIA_TYPE };
    case "FST_ERR_BAD_URL":
      return { status: 400, message: "malformed URL: a percent sign must start a valid UTF-8 escape such as %20" };
    case "FST_ERR_MAX_PARAM_LENGTH":
      return { status: 414, message: "URL too long" };
  }
  const status = "statusCode" in error && typeof error.statusCode === "number" ? error.statusCode : 500;
  if (status >= 400 && status < 500) return { status, message: error.message };
  return { status: 500, message: "internal error" };
}
