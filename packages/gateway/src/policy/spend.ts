import type { Logger } from "pino";
import type { UsageReport } from "../backends/usage.ts";
import type { Budget } from "./budget.ts";
import type { PriceTable } from "./pricing.ts";

/** Turns the usage cloud backends report into spend: priced per model, added to the budget. */
export class SpendRecorder {
  readonly #unpriced = new Set<string>();

  constructor(
    private readonly prices: PriceTable,
    private readonly budget: Budget | undefined,
    private readonly logger: Logger,
  ) {}

  record(report: UsageReport): void {
    const cost = this.prices.cost(report.model, report.usage);
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
}
