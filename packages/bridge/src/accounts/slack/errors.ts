// What Slack's answers mean for the bridge. @slack/web-api throws errors with a `code`: PlatformError (HTTP 200 with
// ok:false; `data.error` is Slack's error code), RateLimitedError (429; `retryAfter` in seconds, thrown because the
// client is built with rejectRateLimitedCalls), RequestError (no answer: network) and HTTPError (another status).
import { ErrorCode } from "@slack/web-api";
import { asError } from "@switchboard/common";
import { AccountFailure, PermanentSendError, RetryAfter } from "../../core/connection.ts";

interface SlackApiError {
  code?: string;
  data?: { error?: string };
  retryAfter?: number;
  message?: string;
}

/** Error codes that mean the token is wrong, revoked or lacks what the bridge needs: retrying cannot help. */
const TOKEN_ERRORS = new Set([
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "not_allowed_token_type",
  "missing_scope",
  "no_permission",
  "invalid_token",
]);

export const platformError = (error: unknown): string | undefined =>
  (error as SlackApiError).code === ErrorCode.PlatformError ? (error as SlackApiError).data?.error : undefined;

export const isNetworkError = (error: unknown): boolean => {
  const code = (error as SlackApiError).code;
  return code === ErrorCode.RequestError || (code === ErrorCode.HTTPError && !isRateLimited(error));
};

const isRateLimited = (error: unknown) => (error as SlackApiError).code === ErrorCode.RateLimitedError;

/** A refused token as a start-up error naming the key, or undefined when the error is something else. */
export function tokenFailure(error: unknown, key: "Token" | "AppToken"): AccountFailure | undefined {
  const code = platformError(error);
  if (code === undefined || !TOKEN_ERRORS.has(code)) return undefined;
  const hint =
    key === "AppToken"
      ? "an app-level token (xapp-...) with the connections:write scope, and Socket Mode turned on for the app"
      : "the Bot User OAuth Token (xoxb-...) of an app installed in the workspace";
  return new AccountFailure(`Slack refused ${key} (${code}); it must be ${hint}`);
}

/** A send's failure as the outbound queue understands it. */
export function sendFailure(error: unknown): Error {
  if (isRateLimited(error)) {
    const seconds = (error as SlackApiError).retryAfter ?? 1;
    return new RetryAfter(seconds * 1000, `Slack rate limit: retry after ${seconds} s`);
  }
  const code = platformError(error);
  if (code !== undefined) {
    const hint = code === "not_in_channel" ? " (invite the app to the channel: /invite @<app name>)" : "";
    return new PermanentSendError(`Slack refused the message: ${code}${hint}`);
  }
  return asError(error);
}
