import type { Candidate, Filter, FilterContext, Rejection } from "../types.ts";
import { keep } from "./keep.ts";

function check(candidate: Candidate, context: FilterContext) {
  const minTier = context.policy?.minTier ?? 1;
  if (candidate.settings.tier >= minTier) return undefined;
  return {
    reason: "tier_too_low" as const,
    detail: `backend tier ${candidate.settings.tier} is below the minimum tier ${minTier}`,
  };
}

/** A policy's `min_tier` excludes backends of a lower capability tier (strict mode: higher tiers are fine). */
export const tierFilter: Filter = <C extends Candidate>(
  candidates: readonly C[],
  context: FilterContext,
  rejected: Rejection[],
) => (context.policy?.minTier === undefined ? (candidates as C[]) : keep(candidates, context, rejected, check));
