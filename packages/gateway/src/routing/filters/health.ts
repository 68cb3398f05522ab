import type { Filter } from "../types.ts";

/** Only healthy backends serve. */
export const healthFilter: Filter = (candidates, context, rejected) =>
  candidates.filter((candidate) => {
    if (candidate.status === "healthy") return true;
    rejected.push({
      backend: candidate.name,
      model: context.model,
      reason: "unhealthy",
      detail: `backend is ${candidate.status}`,
    });
    return false;
  });
