// What the Bot API's answers mean for the bridge. grammy throws a GrammyError for an answer with ok:false (carrying
// error_code, description and parameters.retry_after) and an HttpError when no answer came (network, timeout).
import { asError } from "@switchboard/common";
import { GrammyError, HttpError } from "grammy";
import { AccountFailure, PermanentSendError, RetryAfter } from "../../core/connection.ts";

export const isApiError = (error: unknown, code?: number): error is GrammyError =>
  error instanceof GrammyError && (code === undefined || error.error_code === code);

export const isNetworkError = (error: unknown): error is HttpError => error instanceof HttpError;

export const isMarkupRefused = (error: unknown): boolean =>
  isApiError(error, 400) && /can't parse entities/i.test(error.description);

/** A refused getMe: the token is wrong or revoked (401), or not a token at all (404 on some servers). */
export function tokenFailure(error: unknown): AccountFailure | undefined {
  if (!isApiError(error)) return undefined;
  if (error.error_code === 401 || error.error_code === 404) {
    return new AccountFailure(`Telegram refused the token (Token): ${error.error_code} ${error.description}`);
  }
  return undefined;
}

/** A send's failure as the outbound queue understands it. */
export function sendFailure(error: unknown): Error {
  if (isApiError(error, 429)) {
    const seconds = error.parameters.retry_after ?? 1;
    return new RetryAfter(seconds * 1000, `Telegram rate limit: retry after ${seconds} s`);
  }
  // Refused for good: a chat the bot is not in, a message too long, markup that cannot be fixed...
  if (isApiError(error) && error.error_code >= 400 && error.error_code < 500) {
    return new PermanentSendError(`Telegram refused the message: ${error.error_code} ${error.description}`);
  }
  return asError(error);
}
