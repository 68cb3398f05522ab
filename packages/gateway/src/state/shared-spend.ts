import { spendPeriodIds } from "./periods.ts";
import type { StateStore } from "./types.ts";

/** The global budget's spend kept in the store (scope "global"), shaped as policy/budget.ts's SharedSpend. */
export function sharedSpendOf(
  store: StateStore,
  onError: (error: unknown) => void,
): {
  add(usd: number, at: Date): void;
  read(at: Date): Promise<{ monthUsd: number; dayUsd: number }>;
} {
  return {
    add(usd, at) {
      const { day, month } = spendPeriodIds(at);
      store.addSpend("global", [month, day], usd).catch(onError);
    },
    async read(at) {
      const { day, month } = spendPeriodIds(at);
      const [monthUsd = 0, dayUsd = 0] = await store.readSpend("global", [month, day]);
      return { monthUsd, dayUsd };
    },
  };
}
