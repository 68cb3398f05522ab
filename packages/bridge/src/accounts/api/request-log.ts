// One info line per API request: method, path (never the query or headers, so never a token), status, duration.
import type { Logger } from "pino";

export type RequestLogger = (method: string, url: string, status: number, durationMs: number) => void;

export function requestLogger(logger: Logger): RequestLogger {
  return (method, url, status, durationMs) => {
    const query = url.indexOf("?");
    const path = query < 0 ? url : url.slice(0, query);
    const ms = Math.round(durationMs * 100) / 100;
    logger.info({ method, path, status, ms }, `${method} ${path} ${status} ${ms} ms`);
  };
}
