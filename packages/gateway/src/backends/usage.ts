/** Tokens one call consumed, in the provider-neutral shape spend accounting needs. */
export interface TokenUsage {
  /** Prompt tokens billed at the full input price (excludes cache reads and cache writes). */
  inputTokens: number;
  /** Prompt tokens read from the provider's prompt cache (billed at the cache-read price). */
  cacheReadTokens: number;
  /** Prompt tokens written to the provider's prompt cache (billed at the cache-write price). */
  cacheWriteTokens: number;
  outputTokens: number;
}

export interface UsageReport {
  backend: string;
  /** The model name the provider was asked for (prices are looked up by it). */
  model: string;
  usage: TokenUsage;
  /** False when the provider reported no usage and the gateway counted the tokens itself. */
  reported: boolean;
}

/** OpenAI's `usage` object from a provider-neutral usage. */
export function openAiUsage(usage: TokenUsage): Record<string, unknown> {
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
  };
}

/**
 * The most tokens one call can plausibly use of each kind: well above any context window (a few million tokens), far
 * below what makes a price overflow. Usage comes from the backend's answer and is untrusted input.
 */
export const MAX_TOKENS_PER_CALL = 100_000_000;

/** A token count from an answer, made plausible: not a finite number ≥ 0 → 0, more than the bound → the bound. */
export function plausibleTokens(value: number): number {
  if (!(value >= 0)) return 0;
  return Math.min(value, MAX_TOKENS_PER_CALL);
}

/** The usage with every count made plausible, or undefined when it already was. */
export function implausibleUsageFixed(usage: TokenUsage): TokenUsage | undefined {
  const fixed: TokenUsage = {
    inputTokens: plausibleTokens(usage.inputTokens),
    cacheReadTokens: plausibleTokens(usage.cacheReadTokens),
    cacheWriteTokens: plausibleTokens(usage.cacheWriteTokens),
    outputTokens: plausibleTokens(usage.outputTokens),
  };
  const same =
    fixed.inputTokens === usage.inputTokens &&
    fixed.cacheReadTokens === usage.cacheReadTokens &&
    fixed.cacheWriteTokens === usage.cacheWriteTokens &&
    fixed.outputTokens === usage.outputTokens;
  return same ? undefined : fixed;
}
