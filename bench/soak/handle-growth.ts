// Whether a count taken at the quiet moments grew, or only moved. A handle that is sometimes open at a quiet moment
// (one keep-alive socket, say) makes the count jitter by one; a first-versus-last comparison then calls growth
// whenever the last moment happens to catch it. A leak holds its handles: every later count stays above the earlier
// ones. So the lowest count of the last third of the quiet moments is compared with the highest of the first third.
// A steady leak of one handle per quiet moment rises above that jitter; a count moving between 10 and 11 does not.

/** How far the last third's lowest count is above the first third's highest (> 0: grown), or undefined below 2. */
export function growthBeyondJitter(counts: readonly number[]): number | undefined {
  if (counts.length < 2) return undefined;
  const third = Math.ceil(counts.length / 3);
  const earlierHighest = Math.max(...counts.slice(0, third));
  const laterLowest = Math.min(...counts.slice(-third));
  return laterLowest - earlierHighest;
}
