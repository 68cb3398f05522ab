import type { Filter } from "../types.ts";

/** A backend with `max_concurrent` requests in flight takes no more. */
export const capacityFilter: Filter = (candidates, context, rejected) =>
  candidates.filter((candidate) => {
    const limit = candidate.settings.maxConcurrent;
    if (limit === undefined || candidate.pending < limit) return true;
    rejected.push({
      backend: candidate.name,
      model: context.model,
      reason: "at_capacity",
      detail: `${candidate.pending} requests in flight (max_concurrent ${limit})`,
    });
    return false;
  });
