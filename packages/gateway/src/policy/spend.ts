import type { Logger } from "pino";
import { implausibleUsageFixed, MAX_TOKENS_PER_CALL, type UsageReport } from "../backends/usage.ts";
import type { Budget } from "./budget.ts";
import type { PriceTable } from "./pricing.ts";

/** Turns the usage cloud backends report into spend: priced per model, added to the budget. */
export class SpendRecorder {
  readonly #unpriced = new Set<string>();
  /** Backends already named in a log line for an implausible usage (once each: a broken backend repeats itself). */
  readonly #implausible = new Set<string>();

  constructor(
    private readonly prices: PriceTable,
    private readonly budget: Budget | undefined,
    private readonly logger: Logger,
  ) {}

  record(report: UsageReport): void {
    const usage = this.#plausible(report);
    const cost = this.prices.cost(report.model, usage);
    if (cost === undefined) {
      if (!this.#unpriced.has(report.model)) {
        this.#unpriced.add(report.model);
        this.logger.warn(
          `no price for model "${report.model}" (backend ${report.backend}): its spend is not counted; add [pricing."${report.model}"]`,
        );
      }
      return;
    }
    try {
      this.budget?.record(cost);
    } catch (error) {
      this.logger.error({ err: error }, "could not record spend");
    }
  }

  /** The report's usage with out-of-range counts bounded (a usage of 1.7e308 tokens would make the spend Infinity). */
  #plausible(report: UsageReport): UsageReport["usage"] {
    const fixed = implausibleUsageFixed(report.usage);
    if (!fixed) return report.usage;
    if (!this.#implausible.has(report.backend)) {
      this.#implausible.add(report.backend);
      const { inputTokens, cacheReadTokens, cacheWriteTokens, outputTokens } = report.usage;
      this.logger.warn(
        { backend: report.backend, model: report.model, inputTokens, cacheReadTokens, cacheWriteTokens, outputTokens },
        `backend ${report.backend} reported an implausible usage for "${report.model}" ` +
          `(input ${inputTokens}, cache read ${cacheReadTokens}, cache write ${cacheWriteTokens}, output ${outputTokens}): ` +
          `each count is taken as at most ${MAX_TOKENS_PER_CALL} tokens (logged once per backend)`,
      );
    }
    return fixed;
  }
}
