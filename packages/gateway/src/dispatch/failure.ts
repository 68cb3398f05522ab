import type { ServerResponse } from "node:http";
import { ApiError } from "../http/errors.ts";

/** What the last failed attempt left us with. */
export type AttemptFailure =
  | { kind: "status"; backend: string; statusCode: number; contentType: string; body: Buffer }
  | { kind: "unreachable"; backend: string; message: string; timedOut: boolean };

/**
 * Statuses that are the backend's fault, not the client's: 5xx, 429 (fail over, the next backend may have capacity),
 * and 401/403 — the client's credentials never reach a backend, so an auth failure is the gateway's configuration
 * (and relaying it could echo part of the configured key).
 */
export function isBackendFault(statusCode: number): boolean {
  return statusCode >= 500 || statusCode === 429 || statusCode === 401 || statusCode === 403;
}

/** Describes a failed attempt for the 502 message and the logs. */
export function describeFailure(failure: AttemptFailure): string {
  return failure.kind === "status"
    ? `${failure.backend}: HTTP ${failure.statusCode}`
    : `${failure.backend}: ${failure.message}`;
}

/**
 * Answers a request that every attempt failed: upstream 429s are relayed as they are (the client should back off);
 * timeouts become 504; anything else 502, naming each attempt.
 */
export function sendAttemptsFailed(res: ServerResponse, failures: readonly AttemptFailure[], requestId: string): void {
  const last = failures[failures.length - 1];
  if (last?.kind === "status" && failures.every((f) => f.kind === "status" && f.statusCode === 429)) {
    res.writeHead(429, {
      "content-type": last.contentType,
      "content-length": last.body.length,
      "x-request-id": requestId,
    });
    res.end(last.body);
    return;
  }
  const summary = failures.map(describeFailure).join("; ");
  const error =
    last?.kind === "unreachable" && last.timedOut
      ? new ApiError(504, `Backend request timed out (${summary})`, "server_error", "backend_timeout")
      : new ApiError(502, `Every backend attempt failed (${summary})`, "server_error", "backend_error");
  sendApiError(res, error, requestId);
}

/** Writes an ApiError on a raw (hijacked) response. */
export function sendApiError(
  res: ServerResponse,
  error: ApiError,
  requestId: string,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(error.body());
  res.writeHead(error.statusCode, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
    "x-request-id": requestId,
  });
  res.end(payload);
}
