import type { TokenUsage } from "../backends/usage.ts";
import type { ModelPrice } from "../config/types.ts";

export type { ModelPrice };

/**
 * List prices (USD per million tokens) of cloud models as their providers published them in 2025, matched by exact
 * name or by the longest known prefix followed by "-" (so dated variants match). `[pricing]` in the configuration
 * overrides or adds entries. Local backends are never priced: they cost 0.
 */
const DEFAULT_PRICES: ReadonlyArray<readonly [string, ModelPrice]> = [
  ["gpt-4o-mini", { input: 0.15, output: 0.6, cacheRead: 0.075 }],
  ["gpt-4o", { input: 2.5, output: 10, cacheRead: 1.25 }],
  ["gpt-4.1-nano", { input: 0.1, output: 0.4, cacheRead: 0.025 }],
  ["gpt-4.1-mini", { input: 0.4, output: 1.6, cacheRead: 0.1 }],
  ["gpt-4.1", { input: 2, output: 8, cacheRead: 0.5 }],
  ["gpt-4-turbo", { input: 10, output: 30 }],
  ["gpt-4", { input: 30, output: 60 }],
  ["gpt-3.5-turbo", { input: 0.5, output: 1.5 }],
  ["o3-mini", { input: 1.1, output: 4.4, cacheRead: 0.55 }],
  ["o1-mini", { input: 1.1, output: 4.4, cacheRead: 0.55 }],
  ["o1", { input: 15, output: 60, cacheRead: 7.5 }],
  ["text-embedding-3-small", { input: 0.02, output: 0 }],
  ["text-embedding-3-large", { input: 0.13, output: 0 }],
  ["text-embedding-ada-002", { input: 0.1, output: 0 }],
  ["claude-opus-4-5", { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }],
  ["claude-opus-4", { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }],
  ["claude-sonnet-4", { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
  ["claude-haiku-4-5", { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }],
  ["claude-3-7-sonnet", { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
  ["claude-3-5-sonnet", { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
  ["claude-3-5-haiku", { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 }],
  ["claude-3-opus", { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }],
  ["claude-3-haiku", { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 }],
  ["gemini-2.5-pro", { input: 1.25, output: 10, cacheRead: 0.31 }],
  ["gemini-2.5-flash-lite", { input: 0.1, output: 0.4, cacheRead: 0.025 }],
  ["gemini-2.5-flash", { input: 0.3, output: 2.5, cacheRead: 0.075 }],
  ["gemini-2.0-flash-lite", { input: 0.075, output: 0.3 }],
  ["gemini-2.0-flash", { input: 0.1, output: 0.4, cacheRead: 0.025 }],
  ["gemini-1.5-pro", { input: 1.25, output: 5 }],
  ["gemini-1.5-flash", { input: 0.075, output: 0.3 }],
];

/** The prices one gateway uses: the defaults overlaid with the configuration's `[pricing]`. */
export class PriceTable {
  readonly #exact: Map<string, ModelPrice>;
  /** Longest name first, so "gpt-4o-mini" wins over "gpt-4o". */
  readonly #byPrefix: Array<[string, ModelPrice]>;

  constructor(overrides: ReadonlyMap<string, ModelPrice> = new Map()) {
    this.#exact = new Map([...DEFAULT_PRICES, ...overrides]);
    this.#byPrefix = [...this.#exact].sort((a, b) => b[0].length - a[0].length);
  }

  priceOf(model: string): ModelPrice | undefined {
    const exact = this.#exact.get(model);
    if (exact) return exact;
    return this.#byPrefix.find(([name]) => model.startsWith(`${name}-`))?.[1];
  }

  /**
   * The cost estimated before dispatch: the counted prompt tokens at the input price plus `max_tokens` (when given)
   * at the output price. Undefined when the model's price is not known.
   */
  estimate(model: string, promptTokens: number, maxTokens: number | undefined): number | undefined {
    const price = this.priceOf(model);
    if (!price) return undefined;
    return (promptTokens * price.input + (maxTokens ?? 0) * price.output) / 1_000_000;
  }

  /** What a call cost from the tokens it used; 0 for a model without a price (and a warning is the caller's job). */
  cost(model: string, usage: TokenUsage): number | undefined {
    const price = this.priceOf(model);
    if (!price) return undefined;
    return (
      (usage.inputTokens * price.input +
        usage.cacheReadTokens * (price.cacheRead ?? price.input) +
        usage.cacheWriteTokens * (price.cacheWrite ?? price.input) +
        usage.outputTokens * price.output) /
      1_000_000
    );
  }
}
