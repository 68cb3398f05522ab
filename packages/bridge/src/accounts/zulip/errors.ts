// What Zulip's answers mean for the bridge (ZulipApiError from api.ts carries the status and Zulip's error code).
import { AccountFailure, PermanentSendError, RetryAfter } from "../../core/connection.ts";
import { ZulipApiError } from "./api.ts";

export const isApiError = (error: unknown, status?: number): error is ZulipApiError =>
  error instanceof ZulipApiError && (status === undefined || error.status === status);

/** The event queue is gone (expired while the bridge was away, or the server restarted): register a new one. */
export const isQueueGone = (error: unknown): boolean => isApiError(error) && error.code === "BAD_EVENT_QUEUE_ID";

/** No answer at all (refused, reset, timed out, TLS): the link is down. */
export const isNetworkError = (error: unknown): boolean =>
  !(error instanceof ZulipApiError) && error instanceof Error && !(error instanceof AccountFailure);

/** A refused email or API key as a start-up error naming the keys, or undefined when the error is something else. */
export function credentialsFailure(error: unknown): AccountFailure | undefined {
  if (!isApiError(error, 401)) return undefined;
  return new AccountFailure(
    `Zulip refused Login and Token: ${error.message}; Login is the bot's email, Token its API key (Personal settings → Bots)`,
  );
}

/** A send's failure as the outbound queue understands it. */
export function sendFailure(error: unknown): Error {
  if (isApiError(error, 429)) {
    const ms = error.retryAfterMs ?? 1000;
    return new RetryAfter(ms, `Zulip rate limit: retry after ${ms / 1000} s`);
  }
  if (isApiError(error) && error.status >= 400 && error.status < 500) {
    return new PermanentSendError(`Zulip refused the message: ${error.message}${error.code ? ` (${error.code})` : ""}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
