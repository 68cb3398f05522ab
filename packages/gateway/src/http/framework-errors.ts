import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, invalidRequest } from "../request/errors.ts";
import { sendError } from "./send.ts";

/** Errors fastify raises before a route runs (a path it cannot decode), in the envelope. */
export function answerFrameworkError(
  error: { code?: string; message: string },
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  if (error.code === "FST_ERR_BAD_URL" || error.code === "FST_ERR_MAX_PARAM_LENGTH") {
    sendError(reply, invalidRequest("The request path is not valid percent-encoded UTF-8", null, "invalid_url"));
    return;
  }
  sendError(reply, new ApiError(500, "Internal error", "server_error", "internal_error"));
}

/** What Node's HTTP parser refused, as the status and error the client sees. */
function describeClientError(code: string | undefined): ApiError {
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ApiError(408, "The request was not received in time", "invalid_request_error", "request_timeout");
    case "HPE_HEADER_OVERFLOW":
      return new ApiError(
        431,
        "The request headers are larger than the server accepts (16 KiB)",
        "invalid_request_error",
        "headers_too_large",
      );
    case "HPE_INVALID_METHOD":
      return new ApiError(501, "Unknown HTTP method", "invalid_request_error", "method_not_implemented");
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
      return invalidRequest(
        "A request must not carry both Content-Length and Transfer-Encoding",
        null,
        "invalid_framing",
      );
    case "HPE_INVALID_CONTENT_LENGTH":
    case "HPE_INVALID_TRANSFER_ENCODING":
    case "HPE_INVALID_CHUNK_SIZE":
      return invalidRequest("The request body's framing is malformed", null, "invalid_framing");
    default:
      return invalidRequest("The request is not valid HTTP/1.1", null, "malformed_request");
  }
}

/** A complete HTTP/1.1 response with the error envelope, closing the connection. */
function rawErrorResponse(error: ApiError): string {
  const body = JSON.stringify(error.body());
  return (
    `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode] ?? "Error"}\r\n` +
    "Content-Type: application/json; charset=utf-8\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${randomUUID()}\r\n` +
    "Connection: close\r\n\r\n" +
    body
  );
}

/** How long a refused connection may take to read its answer before it is destroyed. */
const CLOSE_AFTER_MS = 2_000;

/** Writes `error` on a socket the HTTP server gave up on, then closes it (bounded). */
function answerOnSocket(socket: Duplex, error: ApiError): void {
  // A response already under way on this connection cannot be followed by another one.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  socket.end(rawErrorResponse(error));
  setTimeout(() => socket.destroy(), CLOSE_AFTER_MS).unref();
}

/** fastify's clientErrorHandler: what Node's parser refused (bad method, framing, 431, timeouts), in the envelope. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  answerOnSocket(socket, describeClientError(error.code));
}

/** CONNECT is not something a gateway tunnels. */
export function answerConnect(socket: Duplex): void {
  answerOnSocket(socket, new ApiError(405, "CONNECT is not supported", "invalid_request_error", "method_not_allowed"));
}

/** Fastify's own errors (body limit, media type, bad JSON) in the envelope. */
export function fromFrameworkError(error: { statusCode?: number; code?: string; message: string }): ApiError {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new ApiError(
        413,
        "Request body is larger than the limit (server.body_limit_bytes)",
        "invalid_request_error",
        "request_too_large",
      );
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new ApiError(
        error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" ? 415 : 400,
        error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE"
          ? "Unsupported content type; send the body as application/json"
          : "Content-Length does not match the body",
        "invalid_request_error",
        error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" ? "unsupported_media_type" : "invalid_content_length",
      );
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return invalidRequest("Request body is empty; send a JSON object", null, "invalid_json");
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ApiError(status, error.message, "invalid_request_error", "invalid_request");
  }
  return new ApiError(500, "Internal error", "server_error", "internal_error");
}
