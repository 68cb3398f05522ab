// Every error a client can see is {"message": "..."} with a designed status.
import type { FastifyError, FastifyReply } from "fastify";

export function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type("application/json; charset=utf-8").send(JSON.stringify({ message }));
}

/** Maps fastify's own errors (body parsing, limits) to designed answers; anything else is a 500 without details. */
export function describeFastifyError(error: FastifyError, bodyLimit: number): { status: number; message: string } {
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return { status: 415, message: "unsupported Content-Type: send the body as Content-Type: application/json" };
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return { status: 413, message: `body too large: the limit is ${bodyLimit} bytes` };
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return { status: 400, message: "Content-Length does not match the body" };
    case "FST_ERR_CTP_INVALID_TYPE":
      return { status: 415, message: "invalid Content-Type header" };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, message: error.message };
  return { status: 500, message: "internal error" };
}
