// Connection limits of an api account's HTTP server, from its keys (seconds and a count; defaults in keys.ts). Slow
// or idle clients are cut, so a slowloris cannot hold connections for long, and the number of connections is capped.
import type { AccountSettings } from "../../config/descriptor.ts";
import type { API_KEYS } from "./keys.ts";

export interface ServerLimits {
  /** ReadHeaderTimeout: the request line and headers must arrive within this (answered 408 otherwise). */
  readHeaderTimeoutMs: number;
  /** ReadTimeout: the whole request, body included, must arrive within this (408 otherwise). */
  readTimeoutMs: number;
  /** IdleTimeout: a kept-alive connection with no request in progress is closed after this. */
  idleTimeoutMs: number;
  /** MaxConnections: connections beyond this many are refused (streams and websockets count). */
  maxConnections: number;
}

export function serverLimits(settings: AccountSettings<typeof API_KEYS>): ServerLimits {
  const readTimeoutMs = settings.ReadTimeout * 1000;
  return {
    // Node refuses a header timeout longer than the request timeout; the headers are part of the request anyway.
    readHeaderTimeoutMs: Math.min(settings.ReadHeaderTimeout * 1000, readTimeoutMs),
    readTimeoutMs,
    idleTimeoutMs: settings.IdleTimeout * 1000,
    maxConnections: settings.MaxConnections,
  };
}
