// One info line per API request: method, path (never the query or headers, so never a token), status, duration.
// The line is built directly in the form pino writes it (common's directInfoLines): pino's generic serialisation of
// the same object, with the redaction of every line, cost about 4 % of the bridge's CPU per posted message during
// api -> IRC bursts. The line holds no secret by construction, so it needs no redaction.
// test/request-log.test.ts holds the two forms equal.
import { directInfoLines, jsonNumber } from "@switchboard/common";
import type { Logger } from "pino";

export type RequestLogger = (method: string, url: string, status: number, durationMs: number) => void;
/** The line of requests to one route: only the status and duration vary. */
export type RouteLogger = (status: number, durationMs: number) => void;

const q = JSON.stringify;

export function requestLogger(logger: Logger): RequestLogger {
  const lines = directInfoLines(logger);
  return (method, url, status, durationMs) => {
    if (!lines.enabled()) return;
    const query = url.indexOf("?");
    const path = query < 0 ? url : url.slice(0, query);
    const ms = Math.round(durationMs * 100) / 100;
    lines.write(
      `,"method":${q(method)},"path":${q(path)},"status":${jsonNumber(status)},"ms":${jsonNumber(ms)}`,
      `${method} ${path} ${status} ${ms} ms`,
    );
  };
}

/**
 * requestLogger's line for one method and path (no query), with their JSON and message parts built once: the busiest
 * route's line (every post) then costs only its status and duration.
 */
export function routeLogger(logger: Logger, method: string, path: string): RouteLogger {
  const lines = directInfoLines(logger);
  const fields = `,"method":${q(method)},"path":${q(path)},"status":`;
  const message = `${method} ${path} `;
  return (status, durationMs) => {
    if (!lines.enabled()) return;
    const ms = Math.round(durationMs * 100) / 100;
    lines.write(`${fields}${jsonNumber(status)},"ms":${jsonNumber(ms)}`, `${message}${status} ${ms} ms`);
  };
}
