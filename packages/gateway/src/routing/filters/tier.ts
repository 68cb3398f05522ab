import type { Filter } from "../types.ts";

/** A policy's `min_tier` excludes backends of a lower capability tier (strict mode: higher tiers are fine). */
export const tierFilter: Filter = (candidates, context, rejected) => {
  const minTier = context.policy?.minTier;
  if (minTier === undefined) return [...candidates];
  return candidates.filter((candidate) => {
    if (candidate.settings.tier >= minTier) return true;
    rejected.push({
      backend: candidate.name,
      model: context.model,
      reason: "tier_too_low",
      detail: `backend tier ${candidate.settings.tier} is below the minimum tier ${minTier}`,
    });
    return false;
  });
};
