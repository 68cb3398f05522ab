import { after } from "node:test";
import type { Teardown } from "./process.ts";

/**
 * Teardown for things made in a `before` hook: call it in the describe body or at the top of a test file. (node:test's
 * `after` called inside a `before` hook runs at the end of that hook, which would stop a server before its tests.)
 * Cleanups run in reverse order, and each one runs even if an earlier one failed.
 */
export function suiteTeardown(): Teardown {
  const cleanups: (() => Promise<void> | void)[] = [];
  after(async () => {
    const errors: unknown[] = [];
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, "suite cleanup failed");
  });
  return { after: (fn) => cleanups.push(fn) };
}
