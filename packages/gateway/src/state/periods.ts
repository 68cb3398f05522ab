import type { BudgetPeriod } from "./types.ts";

/** The spend period ids of a moment (UTC): the day's, the month's and the lifetime one. */
export function spendPeriodIds(at: Date): { day: string; month: string; total: string } {
  const iso = at.toISOString();
  return { day: `d:${iso.slice(0, 10)}`, month: `m:${iso.slice(0, 7)}`, total: "total" };
}

export function periodIdOf(period: BudgetPeriod, at: Date): string {
  const ids = spendPeriodIds(at);
  return period === "daily" ? ids.day : period === "monthly" ? ids.month : ids.total;
}

/** Until the period's spend starts from 0 again; 0 for "total" (it never does). */
export function msUntilPeriodEnds(period: BudgetPeriod, at: Date): number {
  if (period === "total") return 0;
  const end =
    period === "daily"
      ? Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1)
      : Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
  return end - at.getTime();
}

/** How long a period's counter is worth keeping (Redis expiry): a little more than the period. */
export function retentionSecondsOf(periodId: string): number | undefined {
  if (periodId.startsWith("d:")) return 3 * 86_400;
  if (periodId.startsWith("m:")) return 63 * 86_400;
  return undefined;
}
