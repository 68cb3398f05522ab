// What Zulip's answers mean for the bridge (ZulipApiError from api.ts carries the status and Zulip's error code).
import { AccountFailure } from "../../core/connection.ts";
import { describeFailure } from "../failure-reason.ts";
import type { SendFailures } from "../guarded-send.ts";
import { isLinkDown, statusSendFailure } from "../status-errors.ts";
import { ZulipApiError } from "./api.ts";

export const isApiError = (error: unknown, status?: number): error is ZulipApiError =>
  error instanceof ZulipApiError && (status === undefined || error.status === status);

/** The event queue is gone (expired while the bridge was away, or the server restarted): register a new one. */
export const isQueueGone = (error: unknown): boolean => isApiError(error) && error.code === "BAD_EVENT_QUEUE_ID";

/** A refused email or API key as a start-up error naming the keys, or undefined when the error is something else. */
export function credentialsFailure(error: unknown): AccountFailure | undefined {
  if (!isApiError(error, 401)) return undefined;
  return new AccountFailure(
    `Zulip refused Login and Token: ${error.message}; Login is the bot's email, Token its API key (Personal settings → Bots)`,
  );
}

export const SEND_FAILURES: SendFailures = {
  isNetworkError: (error) => isLinkDown(error, isApiError),
  credentialsRevoked: (error) =>
    isApiError(error, 401) ? `Zulip no longer accepts Login and Token: ${error.message}` : undefined,
  sendFailure: (error) =>
    statusSendFailure(error, isApiError, {
      platform: "Zulip",
      defaultRetryMs: 1000,
      detail: (refusal) => (refusal.code ? ` (${refusal.code})` : ""),
    }),
  describe: describeFailure,
};
