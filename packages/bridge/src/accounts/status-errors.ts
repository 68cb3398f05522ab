// What a failed call to a platform's HTTP API means for the bridge, for clients whose errors carry the HTTP status
// (and, for a 429, the wait the server asked for): an error without one is a link that is down; a 429 is a wait; any
// other 4xx refuses this message for good; the rest (5xx) is worth retrying.
import { asError } from "@switchboard/common";
import { AccountFailure, PermanentSendError, RetryAfter } from "../core/connection.ts";

/** An API client's error for an answer it got. */
export interface StatusError extends Error {
  readonly status: number;
  /** For a 429: how long the server asks to wait. */
  readonly retryAfterMs?: number;
}

export type IsStatusError<E extends StatusError> = (error: unknown) => error is E;

/** No answer at all (refused, reset, timed out, TLS, aborted): the link is down. */
export function isLinkDown<E extends StatusError>(error: unknown, isStatusError: IsStatusError<E>): boolean {
  return error instanceof Error && !isStatusError(error) && !(error instanceof AccountFailure);
}

export interface RefusalWords<E extends StatusError> {
  /** Whose rate limit a 429 is ("Zulip"). */
  platform: string;
  /** Who refused a message (the platform by default; "Talk" for Nextcloud). */
  refuser?: string;
  /** The wait when a 429 names none. */
  defaultRetryMs: number;
  /** Said after the refusal's message: the platform's error code, a hint. */
  detail?(error: E): string;
}

/** A send's failure as the outbound queue understands it. */
export function statusSendFailure<E extends StatusError>(
  error: unknown,
  isStatusError: IsStatusError<E>,
  words: RefusalWords<E>,
): Error {
  if (isStatusError(error) && error.status === 429) {
    const ms = error.retryAfterMs ?? words.defaultRetryMs;
    return new RetryAfter(ms, `${words.platform} rate limit: retry after ${ms / 1000} s`);
  }
  if (isStatusError(error) && error.status >= 400 && error.status < 500) {
    const detail = words.detail?.(error) ?? "";
    return new PermanentSendError(`${words.refuser ?? words.platform} refused the message: ${error.message}${detail}`);
  }
  return asError(error);
}
