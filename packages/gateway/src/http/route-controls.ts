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
export function routeControls(headers: IncomingHttpHeaders): RouteOptions & { priority: Priority } {
  const strict = TRUE.has(header(headers, "x-gateway-strict") ?? "");
  const flexible = !strict && TRUE.has(header(headers, "x-gateway-flexible") ?? "");
  return { flexible, priority: header(headers, "x-gateway-priority") === "high" ? "high" : "normal" };
}
