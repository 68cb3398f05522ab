import type { Candidate, Filter } from "../types.ts";
import { keep } from "./keep.ts";

function check(candidate: Candidate) {
  const limit = candidate.settings.maxConcurrent;
  if (limit === undefined || candidate.pending < limit) return undefined;
  return {
    reason: "at_capacity" as const,
    detail: `${candidate.pending} requests in flight (max_concurrent ${limit})`,
  };
}

/** A backend with `max_concurrent` requests in flight takes no more. */
export const capacityFilter: Filter = (candidates, context, rejected) => keep(candidates, context, rejected, check);
