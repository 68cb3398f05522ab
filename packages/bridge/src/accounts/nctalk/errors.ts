// What Nextcloud's answers mean for the bridge (OcsError from ocs-client.ts carries the HTTP status).
import { AccountFailure } from "../../core/connection.ts";
import { describeFailure } from "../failure-reason.ts";
import type { SendFailures } from "../guarded-send.ts";
import { isLinkDown, statusSendFailure } from "../status-errors.ts";
import { OcsError } from "./ocs-client.ts";

export const isOcsError = (error: unknown, status?: number): error is OcsError =>
  error instanceof OcsError && (status === undefined || error.status === status);

/** A refused app password as a start-up error naming the keys, or undefined when the error is something else. */
export function credentialsFailure(error: unknown): AccountFailure | undefined {
  if (!isOcsError(error, 401)) return undefined;
  return new AccountFailure(
    `Nextcloud refused Login and Password (${error.message}); Password must be an app password of Login (Settings → Security → Devices & sessions)`,
  );
}

/** The line ending the account when Nextcloud stops accepting the app password while running. */
export const credentialsRevoked = (error: unknown): string | undefined =>
  isOcsError(error, 401) ? `Nextcloud no longer accepts Login and Password: ${error.message}` : undefined;

export const SEND_FAILURES: SendFailures = {
  isNetworkError: (error) => isLinkDown(error, isOcsError),
  credentialsRevoked,
  sendFailure: (error) =>
    statusSendFailure(error, isOcsError, { platform: "Nextcloud", refuser: "Talk", defaultRetryMs: 5000 }),
  describe: describeFailure,
};
