import type { OutgoingHttpHeaders } from "node:http";
import type { BackendState } from "../fleet/backend-state.ts";
import type { PriceTable } from "../policy/pricing.ts";
import type { RouteReason, Target } from "../routing/types.ts";

const HEADER_NAMES = new WeakMap<BackendState, string>();

/** The backend's name as a header value, computed once. */
function backendHeader(state: BackendState): string {
  let value = HEADER_NAMES.get(state);
  if (value === undefined) {
    value = asciiHeader(state.name);
    HEADER_NAMES.set(state, value);
  }
  return value;
}

/** The X-Gateway-* headers of a proxied response. Routing metadata never enters the body. */
export function routeHeaders(
  target: Target<BackendState>,
  reason: RouteReason,
  requestId: string,
  estimatedTokens: number,
  maxTokens: number | undefined,
  prices: PriceTable,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    "x-gateway-backend": backendHeader(target.backend),
    "x-gateway-backend-type": target.backend.settings.kind,
    "x-gateway-privacy-zone": target.backend.settings.zone,
    "x-gateway-route-reason": reason,
    "x-request-id": requestId,
  };
  if (target.fallback) headers["x-gateway-fallback-model"] = asciiHeader(target.model);
  // Local backends are never priced: they cost 0.
  if (target.backend.settings.kind === "cloud") {
    const cost = prices.estimate(target.model, estimatedTokens, maxTokens);
    if (cost !== undefined) headers["x-gateway-cost-estimated"] = cost.toFixed(6);
  }
  return headers;
}

/** Header values must be visible ASCII: anything else is escaped as \uXXXX. */
export function asciiHeader(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
