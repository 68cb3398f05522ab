// What Mattermost's answers mean for the bridge (MattermostApiError from api.ts carries the status and error id).
import { asError } from "@switchboard/common";
import { AccountFailure, PermanentSendError, RetryAfter } from "../../core/connection.ts";
import { MattermostApiError } from "./api.ts";

export const isApiError = (error: unknown, status?: number): error is MattermostApiError =>
  error instanceof MattermostApiError && (status === undefined || error.status === status);

/** No answer at all (refused, reset, timed out, TLS): the link is down. */
export const isNetworkError = (error: unknown): boolean =>
  !(error instanceof MattermostApiError) && error instanceof Error && !(error instanceof AccountFailure);

/** A refused login or token as a start-up error naming the keys, or undefined when the error is something else. */
export function credentialsFailure(error: unknown, usingToken: boolean): AccountFailure | undefined {
  if (!isApiError(error, 401)) return undefined;
  const keys = usingToken ? "Token" : "Login and Password";
  return new AccountFailure(`Mattermost refused ${keys}: ${error.message} (${error.id})`);
}

/** A send's failure as the outbound queue understands it. */
export function sendFailure(error: unknown): Error {
  if (isApiError(error, 429)) {
    const ms = error.retryAfterMs ?? 1000;
    return new RetryAfter(ms, `Mattermost rate limit: retry after ${ms / 1000} s`);
  }
  if (isApiError(error) && error.status >= 400 && error.status < 500) {
    return new PermanentSendError(`Mattermost refused the message: ${error.message} (${error.id})`);
  }
  return asError(error);
}
