import type { Filter } from "../types.ts";

/** A model under a `privacy = "restricted"` policy is served only by backends in the restricted zone. */
export const privacyFilter: Filter = (candidates, context, rejected) => {
  if (context.policy?.privacy !== "restricted") return [...candidates];
  return candidates.filter((candidate) => {
    if (candidate.settings.zone === "restricted") return true;
    rejected.push({
      backend: candidate.name,
      model: context.model,
      reason: "privacy_zone_mismatch",
      detail: `backend zone is ${candidate.settings.zone}; policy for ${context.model} requires restricted`,
    });
    return false;
  });
};
