import type { Candidate, Filter, FilterContext, Rejection } from "../types.ts";
import { keep } from "./keep.ts";

function check(candidate: Candidate, context: FilterContext) {
  if (context.quality === undefined || context.quality.admits(candidate.name, context.model)) return undefined;
  return {
    reason: "error_rate_too_high" as const,
    detail: `recent error rate for ${context.model} is over quality.error_rate_threshold; retried after the cool-down`,
  };
}

/** A backend whose recent error rate for the model is over the threshold is left out until its half-open trial. */
export const qualityFilter: Filter = <C extends Candidate>(
  candidates: readonly C[],
  context: FilterContext,
  rejected: Rejection[],
) => (context.quality === undefined ? (candidates as C[]) : keep(candidates, context, rejected, check));
