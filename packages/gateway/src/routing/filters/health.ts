import type { Candidate, Filter } from "../types.ts";
import { keep } from "./keep.ts";

function check(candidate: Candidate) {
  return candidate.status === "healthy"
    ? undefined
    : { reason: "unhealthy" as const, detail: `backend is ${candidate.status}` };
}

/** Only healthy backends serve. */
export const healthFilter: Filter = (candidates, context, rejected) => keep(candidates, context, rejected, check);
