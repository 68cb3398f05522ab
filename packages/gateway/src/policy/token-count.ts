/**
 * Counting BPE tokens without the tokenizer's worst cases. Byte-pair merging is quadratic in the length of one
 * pre-token (a run of letters, of punctuation, of spaces): a single long run takes seconds (docs/benchmarks.md,
 * "Figures behind the code"). So runs of RUN_PIECE characters or more without a break are counted in pieces of that
 * length; a cut inside a run adds at most one token per piece to the estimate.
 */
export const RUN_PIECE = 48;
const LONG_RUN = new RegExp(`\\S{${RUN_PIECE},}|\\s{${RUN_PIECE},}`, "g");

/** `countTokens` (the tokenizer's) applied to `text` with long runs cut: linear in the text's length. */
export function countInPieces(text: string, countTokens: (text: string) => number): number {
  let total = 0;
  let last = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    if (run.index > last) total += countTokens(text.slice(last, run.index));
    const piece = run[0];
    for (let i = 0; i < piece.length; i += RUN_PIECE) total += countTokens(piece.slice(i, i + RUN_PIECE));
    last = run.index + piece.length;
  }
  if (last < text.length) total += countTokens(text.slice(last));
  return total;
}
