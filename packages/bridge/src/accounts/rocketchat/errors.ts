// What Rocket.Chat's answers mean for the bridge (RocketChatApiError from api.ts carries the status and errorType).
import { AccountFailure } from "../../core/connection.ts";
import { describeFailure } from "../failure-reason.ts";
import type { SendFailures } from "../guarded-send.ts";
import { isLinkDown, statusSendFailure } from "../status-errors.ts";
import { RocketChatApiError } from "./api.ts";

export const isApiError = (error: unknown, status?: number): error is RocketChatApiError =>
  error instanceof RocketChatApiError && (status === undefined || error.status === status);

/** A refused login as a start-up error naming the keys, or undefined when the error is something else. */
export function credentialsFailure(error: unknown): AccountFailure | undefined {
  if (!isApiError(error, 401)) return undefined;
  return new AccountFailure(`Rocket.Chat refused Login and Password: ${error.message}`);
}

export const SEND_FAILURES: SendFailures = {
  isNetworkError: (error) => isLinkDown(error, isApiError),
  credentialsRevoked: (error) =>
    isApiError(error, 401) ? `Rocket.Chat no longer accepts the session: ${error.message}` : undefined,
  sendFailure: (error) =>
    statusSendFailure(error, isApiError, {
      platform: "Rocket.Chat",
      defaultRetryMs: 1000,
      detail: (refusal) =>
        refusal.errorType === "error-not-allowed"
          ? " (posting under the relayed nick needs the bot role; or set PrefixMessagesWithNick = true)"
          : "",
    }),
  describe: describeFailure,
};
