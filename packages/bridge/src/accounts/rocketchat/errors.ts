// What Rocket.Chat's answers mean for the bridge (RocketChatApiError from api.ts carries the status and errorType).
import { AccountFailure, PermanentSendError, RetryAfter } from "../../core/connection.ts";
import { RocketChatApiError } from "./api.ts";

export const isApiError = (error: unknown, status?: number): error is RocketChatApiError =>
  error instanceof RocketChatApiError && (status === undefined || error.status === status);

/** No answer at all (refused, reset, timed out, TLS): the link is down. */
export const isNetworkError = (error: unknown): boolean =>
  !(error instanceof RocketChatApiError) && error instanceof Error && !(error instanceof AccountFailure);

/** A refused login as a start-up error naming the keys, or undefined when the error is something else. */
export function credentialsFailure(error: unknown): AccountFailure | undefined {
  if (!isApiError(error, 401)) return undefined;
  return new AccountFailure(`Rocket.Chat refused Login and Password: ${error.message}`);
}

/** A send's failure as the outbound queue understands it. */
export function sendFailure(error: unknown): Error {
  if (isApiError(error, 429)) {
    const ms = error.retryAfterMs ?? 1000;
    return new RetryAfter(ms, `Rocket.Chat rate limit: retry after ${ms / 1000} s`);
  }
  if (isApiError(error) && error.status >= 400 && error.status < 500) {
    const hint =
      error.errorType === "error-not-allowed"
        ? " (posting under the relayed nick needs the bot role; or set PrefixMessagesWithNick = true)"
        : "";
    return new PermanentSendError(`Rocket.Chat refused the message: ${error.message}${hint}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
