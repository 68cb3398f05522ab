import { PreparedHeaders } from "@switchboard/common";

const JSON_TYPE = "application/json; charset=utf-8";
/** Delivery counts whose lines are kept (a post reaches a handful of channels); larger ones are made per answer. */
const KEPT_COUNTS = 64;

const kept: PreparedHeaders[] = [];

/**
 * The head lines a post answered 200 begins with (Content-Type, X-Switchboard-Deliveries), checked and rendered once
 * per delivery count: an answer then adds only its Content-Length (and Connection during a stop).
 */
export function deliveredLines(deliveries: number): PreparedHeaders {
  const cached = kept[deliveries];
  if (cached !== undefined) return cached;
  const lines = new PreparedHeaders({ "content-type": JSON_TYPE, "x-switchboard-deliveries": String(deliveries) });
  if (Number.isInteger(deliveries) && deliveries >= 0 && deliveries < KEPT_COUNTS) kept[deliveries] = lines;
  return lines;
}
