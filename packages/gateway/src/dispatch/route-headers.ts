import type { OutgoingHttpHeaders } from "node:http";
import type { BackendState } from "../fleet/backend-state.ts";
import { estimateCost } from "../policy/pricing.ts";
import type { RouteReason, Target } from "../routing/types.ts";

const STATIC = new WeakMap<BackendState, OutgoingHttpHeaders>();

/** Header values that never change for a backend, computed once. */
function staticHeaders(state: BackendState): OutgoingHttpHeaders {
  let headers = STATIC.get(state);
  if (!headers) {
    headers = {
      "x-gateway-backend": asciiHeader(state.name),
      "x-gateway-backend-type": state.settings.kind,
      "x-gateway-privacy-zone": state.settings.zone,
    };
    STATIC.set(state, headers);
  }
  return headers;
}

/** The X-Gateway-* headers of a proxied response. Routing metadata never enters the body. */
export function routeHeaders(
  target: Target<BackendState>,
  reason: RouteReason,
  requestId: string,
  estimatedTokens: number,
  maxTokens: number | undefined,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    ...staticHeaders(target.backend),
    "x-gateway-route-reason": reason,
    "x-request-id": requestId,
  };
  if (target.fallback) headers["x-gateway-fallback-model"] = asciiHeader(target.model);
  if (target.backend.settings.kind === "cloud") {
    const cost = estimateCost(target.model, estimatedTokens, maxTokens);
    if (cost !== undefined) headers["x-gateway-cost-estimated"] = cost.toFixed(6);
  }
  return headers;
}

/** Header values must be visible ASCII: anything else is escaped as \uXXXX. */
export function asciiHeader(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
