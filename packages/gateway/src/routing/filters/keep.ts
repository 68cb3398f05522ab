import type { Candidate, FilterContext, Rejection } from "../types.ts";

/** Why `candidate` is excluded, or undefined to keep it. */
export type Check = (candidate: Candidate, context: FilterContext) => Omit<Rejection, "backend" | "model"> | undefined;

/**
 * Keeps the candidates `check` accepts and records a rejection for each other one. Allocation-free in the common case:
 * when every candidate passes, the input array itself is returned.
 */
export function keep<C extends Candidate>(
  candidates: readonly C[],
  context: FilterContext,
  rejected: Rejection[],
  check: Check,
): C[] {
  let kept: C[] | undefined;
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i]!;
    const problem = check(candidate, context);
    if (problem === undefined) {
      kept?.push(candidate);
      continue;
    }
    kept ??= candidates.slice(0, i);
    rejected.push({ backend: candidate.name, model: context.model, reason: problem.reason, detail: problem.detail });
  }
  return kept ?? (candidates as C[]);
}
