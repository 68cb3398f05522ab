// What Nextcloud's answers mean for the bridge (OcsError from ocs-client.ts carries the HTTP status).
import { AccountFailure, PermanentSendError, RetryAfter } from "../../core/connection.ts";
import { OcsError } from "./ocs-client.ts";

export const isOcsError = (error: unknown, status?: number): error is OcsError =>
  error instanceof OcsError && (status === undefined || error.status === status);

/** No answer at all (refused, reset, timed out, TLS, aborted): the link is down. */
export const isNetworkError = (error: unknown): boolean =>
  !(error instanceof OcsError) && error instanceof Error && !(error instanceof AccountFailure);

/** A refused app password as a start-up error naming the keys, or undefined when the error is something else. */
export function credentialsFailure(error: unknown): AccountFailure | undefined {
  if (!isOcsError(error, 401)) return undefined;
  return new AccountFailure(
    `Nextcloud refused Login and Password (${error.message}); Password must be an app password of Login (Settings → Security → Devices & sessions)`,
  );
}

/** A send's failure as the outbound queue understands it. */
export function sendFailure(error: unknown): Error {
  if (isOcsError(error, 429)) {
    const ms = error.retryAfterMs ?? 5000;
    return new RetryAfter(ms, `Nextcloud rate limit: retry after ${ms / 1000} s`);
  }
  if (isOcsError(error) && error.status >= 400 && error.status < 500) {
    return new PermanentSendError(`Talk refused the message: ${error.message}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
