// An account's send, its failure turned into what the core's outbound queue understands. No answer at all means the
// link is down: that is reported as a disconnect, so the queue holds the message for the reconnect instead of
// dropping it. Credentials the platform stops accepting while running end the account with a line naming the keys.
import type { ConnectionContext } from "../core/connection.ts";

export interface SendFailures {
  isNetworkError(error: unknown): boolean;
  /** The line ending the account when the error says its credentials are no longer accepted; else undefined. */
  credentialsRevoked(error: unknown): string | undefined;
  /** Any other failure as the queue understands it (RetryAfter, PermanentSendError, or retried as it is). */
  sendFailure(error: unknown): Error;
  /** The link-down error, saying what was being done. */
  describe(error: unknown, doing: string): Error;
}

export async function guardedSend(
  send: () => Promise<string>,
  context: ConnectionContext,
  failures: SendFailures,
): Promise<string> {
  try {
    return await send();
  } catch (error) {
    if (failures.isNetworkError(error)) {
      context.disconnected(error);
      throw failures.describe(error, "sending");
    }
    const revoked = failures.credentialsRevoked(error);
    if (revoked !== undefined) context.failed(new Error(revoked));
    throw failures.sendFailure(error);
  }
}
