// Reconnect and retry delays: exponential from a base, capped, with jitter so that accounts (or bridges) that lost
// the same server do not all come back at the same instant.

export interface BackoffPolicy {
  /** The delay before the first retry, in ms (before jitter). */
  baseMs: number;
  /** No delay is ever longer than this, in ms. */
  capMs: number;
}

/**
 * The delay before retry number `attempt` (0 for the first): base × 2^attempt, capped, then "equal jitter": uniform
 * in [d/2, d]. So a delay is never above the cap, never below half of the un-jittered value, and still spreads out.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const cap = Math.max(1, policy.capMs);
  const exponential = Math.min(cap, Math.max(1, policy.baseMs) * 2 ** Math.min(Math.max(0, attempt), 52));
  const jitter = Math.min(1, Math.max(0, random()));
  return Math.round(exponential / 2 + (jitter * exponential) / 2);
}
