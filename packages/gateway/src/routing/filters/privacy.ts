import type { Candidate, Filter, FilterContext, Rejection } from "../types.ts";
import { keep } from "./keep.ts";

function check(candidate: Candidate, context: FilterContext) {
  if (candidate.settings.zone === "restricted") return undefined;
  return {
    reason: "privacy_zone_mismatch" as const,
    detail: `backend zone is ${candidate.settings.zone}; policy for ${context.model} requires restricted`,
  };
}

/** A model under a `privacy = "restricted"` policy is served only by backends in the restricted zone. */
export const privacyFilter: Filter = <C extends Candidate>(
  candidates: readonly C[],
  context: FilterContext,
  rejected: Rejection[],
) => (context.policy?.privacy === "restricted" ? keep(candidates, context, rejected, check) : (candidates as C[]));
