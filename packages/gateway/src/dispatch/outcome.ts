import type { ApiError } from "../request/errors.ts";
import type { AttemptFailure } from "./failure.ts";

/**
 * How the pipeline left a request. `done`: the answer was written (or nobody is left to read one). Otherwise nothing
 * was written, and http/ answers in the inbound API's envelope: `refused` with its error, `failed` from what each
 * attempt failed with.
 */
export type DispatchOutcome =
  | { kind: "done" }
  | { kind: "refused"; error: ApiError; headers: Record<string, string> }
  | { kind: "failed"; failures: readonly AttemptFailure[] };

export const DONE = { kind: "done" } as const;

export const refused = (error: ApiError, headers: Record<string, string> = {}) => ({
  kind: "refused" as const,
  error,
  headers,
});
