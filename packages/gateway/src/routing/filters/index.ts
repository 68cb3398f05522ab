import type { Filter } from "../types.ts";
import { capabilityFilter } from "./capability.ts";
import { capacityFilter } from "./capacity.ts";
import { healthFilter } from "./health.ts";
import { privacyFilter } from "./privacy.ts";
import { tierFilter } from "./tier.ts";

/** The filters every request goes through, in order. Later policy stages (budget, quality, lifecycle) go here. */
export const FILTERS: readonly Filter[] = [healthFilter, privacyFilter, tierFilter, capabilityFilter, capacityFilter];

export { capabilityFilter, capacityFilter, healthFilter, privacyFilter, tierFilter };
