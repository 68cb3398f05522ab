import type { IncomingHttpHeaders } from "node:http";
import type { RouteOptions } from "../routing/types.ts";
import type { Priority } from "../telemetry/events.ts";

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase();
}

const TRUE = new Set(["true", "1", "yes"]);

/**
 * The request's routing controls. Strict is the default; `X-Gateway-Flexible: true` allows substitution unless
 * `X-Gateway-Strict: true` is also sent (the safer reading wins). `X-Gateway-Priority: high` is high, anything else
 * normal.
 */
export function routeControls(headers: IncomingHttpHeaders): RouteControls {
  const strict = TRUE.has(header(headers, "x-gateway-strict") ?? "");
  const flexible = !strict && TRUE.has(header(headers, "x-gateway-flexible") ?? "");
  const high = header(headers, "x-gateway-priority") === "high";
  return flexible ? (high ? FLEXIBLE_HIGH : FLEXIBLE_NORMAL) : high ? STRICT_HIGH : STRICT_NORMAL;
}

type RouteControls = Readonly<RouteOptions & { priority: Priority }>;

// The four possible answers, shared by every request (read-only: nothing writes them).
const STRICT_NORMAL: RouteControls = Object.freeze({ flexible: false, priority: "normal" });
const STRICT_HIGH: RouteControls = Object.freeze({ flexible: false, priority: "high" });
const FLEXIBLE_NORMAL: RouteControls = Object.freeze({ flexible: true, priority: "normal" });
const FLEXIBLE_HIGH: RouteControls = Object.freeze({ flexible: true, priority: "high" });
