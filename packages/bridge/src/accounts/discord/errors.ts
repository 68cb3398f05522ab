// discord.js errors as the core's send outcomes: a 429 (RateLimitError, thrown because the REST client rejects on
// rate limits instead of waiting inside the library) is RetryAfter, so the core's queue waits and keeps the order;
// an answer that retrying cannot change (400, 403, 404) is permanent; 401 means the token stopped working.
import { asError } from "@switchboard/common";
import { DiscordAPIError, RateLimitError } from "discord.js";
import { AccountFailure, PermanentSendError, RetryAfter } from "../../core/connection.ts";

export function sendError(error: unknown, onUnauthorized: (failure: AccountFailure) => void): Error {
  if (error instanceof RateLimitError) return new RetryAfter(Math.max(error.retryAfter, 1));
  if (error instanceof DiscordAPIError) {
    const what = `Discord answered ${error.status} (${error.code}): ${error.message}`;
    if (error.status === 401) {
      const failure = new AccountFailure(`${what}; the Token no longer works`);
      onUnauthorized(failure);
      return failure;
    }
    if (error.status >= 400 && error.status < 500) return new PermanentSendError(what);
  }
  return asError(error);
}

/** Discord's "Unknown Message": the message to edit or delete is gone. */
export function isUnknownMessage(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === 10008;
}

/** The start-up errors discord.js gives, in words that say what to do. */
export function loginError(error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  if (code === "TokenInvalid") {
    return new AccountFailure(
      "Discord refused the Token (401 Unauthorized); copy the bot token from the Developer Portal (Bot → Reset Token)",
    );
  }
  if (code === "DisallowedIntents") {
    return new AccountFailure(
      "Discord refused the bot's intents: enable Server Members Intent and Message Content Intent in the " +
        "Developer Portal (Bot → Privileged Gateway Intents)",
    );
  }
  return asError(error);
}
