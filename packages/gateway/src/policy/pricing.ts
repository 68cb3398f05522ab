/** USD per 1K tokens (input, output) for cloud models, matched by exact name or by the longest known prefix. */
const PRICES: ReadonlyArray<readonly [string, number, number]> = [
  ["gpt-4o-mini", 0.00015, 0.0006],
  ["gpt-4o", 0.0025, 0.01],
  ["gpt-4.1-nano", 0.0001, 0.0004],
  ["gpt-4.1-mini", 0.0004, 0.0016],
  ["gpt-4.1", 0.002, 0.008],
  ["gpt-4-turbo", 0.01, 0.03],
  ["gpt-4", 0.03, 0.06],
  ["gpt-3.5-turbo", 0.0005, 0.0015],
  ["o3-mini", 0.0011, 0.0044],
  ["o1-mini", 0.0011, 0.0044],
  ["o1", 0.015, 0.06],
  ["text-embedding-3-small", 0.00002, 0],
  ["text-embedding-3-large", 0.00013, 0],
  ["text-embedding-ada-002", 0.0001, 0],
];

const SORTED = [...PRICES].sort((a, b) => b[0].length - a[0].length);

/**
 * The cost estimated before dispatch: estimated prompt tokens at the input price plus max_tokens (when given) at the
 * output price. Undefined when the model's price is not known.
 */
export function estimateCost(model: string, promptTokens: number, maxTokens: number | undefined): number | undefined {
  const entry = SORTED.find(([name]) => model === name || model.startsWith(`${name}-`));
  if (!entry) return undefined;
  return (promptTokens * entry[1] + (maxTokens ?? 0) * entry[2]) / 1000;
}
