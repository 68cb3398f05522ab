// Every error a client can see is {"message": "..."} with a designed status, including the ones Node and fastify
// raise before a route runs (bad request lines, bad URLs, oversized headers, timeouts, CONNECT, too many connections).

import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyError, FastifyReply } from "fastify";
import { BodyTooLargeError, discardRestOfBody } from "./body-reader.ts";

const JSON_TYPE = "application/json; charset=utf-8";

export const UNSUPPORTED_MEDIA_TYPE =
  "unsupported Content-Type: send the body as application/json or application/x-www-form-urlencoded";

export function errorBody(message: string): string {
  return JSON.stringify({ message });
}

export function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  // A body the route did not read is discarded (bounded), so the client can read this answer.
  discardRestOfBody(reply.request.raw);
  return reply.code(status).type(JSON_TYPE).send(errorBody(message));
}

/** The over-limit message names the setting to change and its value. */
export function bodyTooLargeMessage(accountId: string, limit: number): string {
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

/** A complete HTTP/1.1 answer for a socket that has no request object (parser errors, CONNECT, over the cap). */
export function rawErrorResponse(status: number, message: string, headers: Record<string, string> = {}): string {
  const body = errorBody(message);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\nContent-Type: ${JSON_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${extra}\r\n${body}`
  );
}

/** What Node's HTTP parser (llhttp) and server timeouts reject, as a status and a message saying what to fix. */
export function describeClientError(error: Error & { code?: string; reason?: string }): {
  status: number;
  message: string;
} {
  const reason = error.reason ?? error.code ?? "parse error";
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: "request not received in time: send the headers and body without pausing" };
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, message: "request headers too large" };
    case "HPE_INVALID_METHOD":
      return { status: 400, message: "unknown HTTP method" };
  }
  // llhttp refuses both headers together (request smuggling), naming whichever came second.
  if (reason.includes("can't be present with")) {
    return { status: 400, message: "Content-Length and Transfer-Encoding together: send only one of them" };
  }
  return { status: 400, message: `malformed HTTP request: ${reason}` };
}

/**
 * Answers a client error from Node's parser on the raw socket. The socket is half-closed after the answer and
 * destroyed shortly after, whatever the client does; unread input is discarded meanwhile.
 */
export function answerOnSocket(
  socket: Duplex,
  status: number,
  message: string,
  headers?: Record<string, string>,
): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.on("error", () => {});
  socket.end(rawErrorResponse(status, message, headers));
  socket.resume();
  setTimeout(() => socket.destroy(), 1_000).unref();
}
