// Connection limits of an api account's HTTP server, from its keys (seconds and a count) with defaults. Slow or idle
// clients are cut, so a slowloris cannot hold connections for long, and the number of connections is capped.
import type { Settings } from "../../config/keys.ts";

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

export const SERVER_LIMIT_DEFAULTS = {
  readHeaderTimeout: 10,
  readTimeout: 30,
  idleTimeout: 10,
  maxConnections: 1000,
} as const;

export function serverLimits(settings: Settings): ServerLimits {
  const readTimeoutMs = (settings.readtimeout ?? SERVER_LIMIT_DEFAULTS.readTimeout) * 1000;
  const readHeaderTimeoutMs = (settings.readheadertimeout ?? SERVER_LIMIT_DEFAULTS.readHeaderTimeout) * 1000;
  return {
    // Node refuses a header timeout longer than the request timeout; the headers are part of the request anyway.
    readHeaderTimeoutMs: Math.min(readHeaderTimeoutMs, readTimeoutMs),
    readTimeoutMs,
    idleTimeoutMs: (settings.idletimeout ?? SERVER_LIMIT_DEFAULTS.idleTimeout) * 1000,
    maxConnections: settings.maxconnections ?? SERVER_LIMIT_DEFAULTS.maxConnections,
  };
}
