// What Graph's answers mean for the bridge. GraphError (from the Graph client) carries the status, Graph's error
// code and the response headers (Retry-After on a 429).
import { GraphError } from "@microsoft/microsoft-graph-client";
import { asError, thrownMessage } from "@switchboard/common";
import { AccountFailure, PermanentSendError, RetryAfter } from "../../core/connection.ts";
import { OAuthError } from "./identity.ts";

export const isGraphError = (error: unknown, status?: number): error is GraphError =>
  error instanceof GraphError && error.statusCode > 0 && (status === undefined || error.statusCode === status);

/** No answer at all (refused, reset, timed out): the link is down. */
export const isNetworkError = (error: unknown): boolean =>
  error instanceof Error &&
  !isGraphError(error) &&
  !(error instanceof OAuthError) &&
  !(error instanceof AccountFailure);

/** The wait a 429 asks for (Retry-After, seconds), else 10 s. */
export function retryAfterMs(error: GraphError): number {
  const seconds = Number(error.headers?.get("retry-after"));
  return error.headers?.has("retry-after") && Number.isFinite(seconds) && seconds >= 0
    ? Math.ceil(seconds * 1000)
    : 10_000;
}

export function describeGraph(error: unknown): string {
  if (isGraphError(error))
    return `${error.statusCode} ${error.code ?? ""} ${error.message}`.replace(/\s+/g, " ").trim();
  // The client wraps an error without an answer (fetch failed, a refused refresh) in a GraphError with no message:
  // what happened is in its body.
  if (error instanceof GraphError && typeof error.body === "string" && error.body !== "") return error.body;
  return thrownMessage(error);
}

/** A send's failure as the outbound queue understands it. */
export function sendFailure(error: unknown): Error {
  if (isGraphError(error, 429)) {
    const ms = retryAfterMs(error);
    return new RetryAfter(ms, `Graph rate limit: retry after ${ms / 1000} s`);
  }
  if (isGraphError(error) && error.statusCode >= 400 && error.statusCode < 500 && error.statusCode !== 401) {
    return new PermanentSendError(`Teams refused the message: ${describeGraph(error)}`);
  }
  return asError(error);
}
