import type { OutgoingHttpHeaders } from "node:http";
import { PreparedHeaders } from "@switchboard/common";
import type { BackendState } from "../fleet/backend-state.ts";
import type { PriceTable } from "../policy/pricing.ts";
import type { RouteReason, Target } from "../routing/types.ts";

/** What routing adds to a proxied answer's head. */
export interface RouteHeaders {
  /** The lines every answer of this backend for this reason carries, checked and rendered once. */
  prepared: PreparedHeaders;
  /** This request's own: its id, the fallback model, the estimated cost (the attempt adds its content headers). */
  headers: OutgoingHttpHeaders;
}

const PREPARED = new WeakMap<BackendState, Map<RouteReason, PreparedHeaders>>();

/** X-Gateway-Backend, -Backend-Type, -Privacy-Zone and -Route-Reason of a backend, made once per reason. */
function backendLines(state: BackendState, reason: RouteReason): PreparedHeaders {
  let byReason = PREPARED.get(state);
  if (byReason === undefined) {
    byReason = new Map();
    PREPARED.set(state, byReason);
  }
  let prepared = byReason.get(reason);
  if (prepared === undefined) {
    prepared = new PreparedHeaders({
      "x-gateway-backend": asciiHeader(state.name),
      "x-gateway-backend-type": state.settings.kind,
      "x-gateway-privacy-zone": state.settings.zone,
      "x-gateway-route-reason": reason,
    });
    byReason.set(reason, prepared);
  }
  return prepared;
}

/** The X-Gateway-* headers of a proxied response. Routing metadata never enters the body. */
export function routeHeaders(
  target: Target<BackendState>,
  reason: RouteReason,
  requestId: string,
  estimatedTokens: number,
  maxTokens: number | undefined,
  prices: PriceTable,
): RouteHeaders {
  const headers: OutgoingHttpHeaders = { "x-request-id": requestId };
  if (target.fallback) headers["x-gateway-fallback-model"] = asciiHeader(target.model);
  // Local backends are never priced: they cost 0.
  if (target.backend.settings.kind === "cloud") {
    const cost = prices.estimate(target.model, estimatedTokens, maxTokens);
    if (cost !== undefined) headers["x-gateway-cost-estimated"] = cost.toFixed(6);
  }
  return { prepared: backendLines(target.backend, reason), headers };
}

/** Header values must be visible ASCII: anything else is escaped as \uXXXX. */
export function asciiHeader(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
