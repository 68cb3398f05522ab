import { ApiError } from "../request/errors.ts";

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
 * The answer to a request every attempt failed: upstream 429s are relayed as they are (the client should back off);
 * timeouts become 504; anything else 502, naming each attempt.
 */
export function attemptsFailedAnswer(
  failures: readonly AttemptFailure[],
): ApiError | { status: number; contentType: string; body: Buffer } {
  const last = failures[failures.length - 1];
  if (last?.kind === "status" && failures.every((f) => f.kind === "status" && f.statusCode === 429)) {
    return { status: 429, contentType: last.contentType, body: last.body };
  }
  const summary = failures.map(describeFailure).join("; ");
  return last?.kind === "unreachable" && last.timedOut
    ? new ApiError(504, `Backend request timed out (${summary})`, "server_error", "backend_timeout")
    : new ApiError(502, `Every backend attempt failed (${summary})`, "server_error", "backend_error");
}
