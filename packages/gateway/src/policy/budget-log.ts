import { thrownMessage } from "@switchboard/common";
import type { Logger } from "pino";
import type { Budget } from "./budget.ts";
import type { StoreCondition } from "./spend-store.ts";

/** One line per change of the state file's condition (failing, then recovered), never one per failed write. */
export function logStoreCondition(logger: Logger, stateFile: string): (condition: StoreCondition) => void {
  return (condition) => {
    if (condition.state === "failing") {
      logger.error(
        { stateFile, reason: condition.reason },
        `cannot save the spend state to ${stateFile} (${condition.reason}); spend is still counted and the write is retried with backoff`,
      );
    } else {
      logger.info({ stateFile }, `the spend state is saved to ${stateFile} again`);
    }
  };
}

/** The last write at shutdown; when it fails, the spend it could not keep is named rather than lost silently. */
export function closeBudget(budget: Budget | undefined, logger: Logger): void {
  if (!budget) return;
  try {
    budget.close();
  } catch (error) {
    const { monthUsd, dayUsd } = budget.spend();
    logger.error(
      { stateFile: budget.settings.stateFile, monthUsd, dayUsd },
      `could not save the spend state to ${budget.settings.stateFile} at shutdown ` +
        `(${thrownMessage(error)}): this month's ${monthUsd} USD (today ${dayUsd} USD) is not kept`,
    );
  }
}
