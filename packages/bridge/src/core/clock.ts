// Time as the supervisor and the outbound queues see it: injectable, so tests drive reconnects, pacing and
// rate-limit waits by advancing a fake clock instead of sleeping.

/** Whatever the clock returns for a timer; only ever given back to the same clock. */
export type TimerHandle = unknown;

export interface Clock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface Delay {
  /** Resolves when the time is up, or at once when cancelled. */
  readonly done: Promise<void>;
  cancel(): void;
}

/** A wait that its owner can cut short (stop, or an account coming back up). */
export function delay(clock: Clock, ms: number): Delay {
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const handle = clock.setTimeout(finish, Math.max(0, ms));
  return {
    done,
    cancel() {
      clock.clearTimeout(handle);
      finish();
    },
  };
}

/** Settles like `promise`, or rejects with `onTimeout()` after `ms`; the timer never outlives the race. */
export async function withTimeout<T>(
  clock: Clock,
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error,
): Promise<T> {
  const timer = delay(clock, ms);
  const expired = timer.done.then(() => {
    throw onTimeout();
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    timer.cancel();
    // The losing `expired` promise rejects after cancel; nothing must report it as unhandled.
    expired.catch(() => {});
  }
}
