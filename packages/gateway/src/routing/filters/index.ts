import type { Filter } from "../types.ts";
import { capabilityFilter } from "./capability.ts";
import { capacityFilter } from "./capacity.ts";
import { healthFilter } from "./health.ts";
import { privacyFilter } from "./privacy.ts";
import { qualityFilter } from "./quality.ts";
import { tierFilter } from "./tier.ts";

/**
 * The filters every request goes through, in order. Later policy stages (budget, lifecycle) go before capacity:
 * capacity stays last, because a request that only capacity turned away may wait in the queue.
 */
export const FILTERS: readonly Filter[] = [
  healthFilter,
  privacyFilter,
  tierFilter,
  capabilityFilter,
  qualityFilter,
  capacityFilter,
];

export { capacityFilter };
