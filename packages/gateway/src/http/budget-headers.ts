import type { ServerResponse } from "node:http";
import type { Budget } from "../policy/budget.ts";

/**
 * X-Gateway-Budget-Status / -Utilization / -Remaining when the budget is not Normal. Set on the raw response before
 * routing and dispatch, so every answer to the request carries them (Node merges them with the headers written later).
 */
export function setBudgetHeaders(res: ServerResponse, budget: Budget | undefined): void {
  if (!budget) return;
  for (const [name, value] of Object.entries(budget.headers())) res.setHeader(name, value);
}
