import type { BucketView } from "./types.ts";

/** Per-minute limits: the window a bucket refills over. */
export const WINDOW_MS = 60_000;

/**
 * A token bucket kept as one number, its "theoretical arrival time" (GCRA): the bucket holds `limit` units and
 * refills continuously over WINDOW_MS, as OpenAI's limits do. The Redis store runs the same arithmetic in Lua
 * (redis-scripts.ts), so both stores refuse exactly the same requests.
 */
export interface BucketStep {
  allowed: boolean;
  /** The stored time after the step (unchanged when refused). */
  tat: number;
  view: BucketView;
  /** When refused: until `test` units fit. */
  retryAfterMs: number;
}

/**
 * Tests whether `test` units fit now; when they do (or when `force`), takes `charge` units.
 * `tat` is the stored time (0 for a new bucket), `now` the clock in ms.
 */
export function stepBucket(
  tat: number,
  now: number,
  limit: number,
  test: number,
  charge: number,
  force = false,
): BucketStep {
  const interval = WINDOW_MS / limit;
  const backlog = Math.max(tat - now, 0);
  const needed = backlog + test * interval;
  if (!force && needed > WINDOW_MS) {
    return { allowed: false, tat, view: viewOf(backlog, limit, interval), retryAfterMs: Math.ceil(needed - WINDOW_MS) };
  }
  const after = backlog + charge * interval;
  return { allowed: true, tat: now + after, view: viewOf(after, limit, interval), retryAfterMs: 0 };
}

export function viewOf(backlog: number, limit: number, interval: number): BucketView {
  return {
    limit,
    remaining: Math.max(0, Math.floor((WINDOW_MS - backlog) / interval + 1e-9)),
    resetMs: Math.max(0, Math.ceil(backlog)),
  };
}
