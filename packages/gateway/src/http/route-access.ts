/**
 * Who may call a route once `[auth]` is on: everyone (/health), the master key (the admin API, model lifecycle
 * changes), the master key unless public_metrics (/metrics, the dashboard), or any valid key (every other route,
 * those added later included).
 */
export type RouteAccess = "open" | "master" | "metrics" | "key";

const METRICS_ROUTES = new Set(["/metrics", "/", "/dashboard/app.js", "/dashboard/style.css", "/v1/dashboard/socket"]);
const MASTER_ROUTES = new Set([
  "POST /v1/models/load",
  "POST /v1/models/migrate",
  "DELETE /v1/models/*",
  "DELETE /v1/models/operations/*",
]);

/** `route` is the route's pattern (undefined when none matched: then a key is needed before the 404). */
export function routeAccess(method: string, route: string | undefined): RouteAccess {
  if (route === undefined) return "key";
  if (route === "/health") return "open";
  if (METRICS_ROUTES.has(route)) return "metrics";
  if (route === "/v1/keys" || route.startsWith("/v1/keys/")) return "master";
  if (MASTER_ROUTES.has(`${method} ${route}`)) return "master";
  return "key";
}
