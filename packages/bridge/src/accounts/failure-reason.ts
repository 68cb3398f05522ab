// The line an account's failure gets when the platform gave no answer the account can name (refused, reset, a
// certificate it does not trust): what was being done, and why. Credentials never appear in it.
import { thrownMessage } from "@switchboard/common";
import { AccountFailure } from "../core/connection.ts";

const TLS_HINT = "; for a self-signed server set SkipTLSVerify = true";

/** An error whose message says what was being done; an AccountFailure passes unchanged. */
export function describeFailure(error: unknown, doing: string): Error {
  if (error instanceof AccountFailure) return error;
  const reason = thrownMessage(error);
  // fetch says only "fetch failed": what failed is its cause. A WebSocket names the certificate in its own message.
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
  const hint = /certificate/i.test(`${reason}${cause}`) ? TLS_HINT : "";
  return new Error(`${doing}: ${reason}${cause}${hint}`);
}
