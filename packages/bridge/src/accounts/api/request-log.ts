// One info line per API request: method, path (never the query or headers, so never a token), status, duration.
// The line is built directly in the form pino writes it (common's directInfoLines): pino's generic serialisation of
// the same object, with the redaction of every line, cost about 4 % of the bridge's CPU per posted message during
// api -> IRC bursts. The line holds no secret by construction, so it needs no redaction.
// test/request-log.test.ts holds the two forms equal.
import { directInfoLines, jsonNumber } from "@switchboard/common";
import type { Logger } from "pino";

export type RequestLogger = (method: string, url: string, status: number, durationMs: number) => void;

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
