// The api accounts' request lines are built directly (accounts/api/request-log.ts): they must be the very lines pino
// writes for the same fields and message, with the bridge's logger settings (base, redaction, an account's bindings).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { requestLogger, routeLogger } from "../src/accounts/api/request-log.ts";
import { createLogger } from "../src/logger.ts";

function loggerInto(lines: string[], debug: boolean, account: string) {
  return createLogger({ debug, destination: { write: (line: string) => void lines.push(line) } }).child({ account });
}

const sameTime = (line: string | undefined) => (line ?? "").replace(/"time":\d+/, '"time":0');

describe("api request lines", () => {
  it("are the line pino writes for the same fields, whatever the path, status and duration", () => {
    const text = fc.string({ unit: "binary", maxLength: 40 });
    const duration = fc.oneof(
      fc.double({ min: 0, max: 1e6, noNaN: true }),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 0.005, 1234.5678),
    );
    fc.assert(
      fc.property(
        fc.constantFrom("GET", "POST", "HEAD"),
        text,
        fc.option(text, { nil: undefined }),
        fc.integer({ min: 100, max: 599 }),
        duration,
        fc.boolean(),
        text,
        (method, path, query, status, durationMs, debug, account) => {
          const url = query === undefined ? path : `${path}?${query}`;
          const expected: string[] = [];
          const written: string[] = [];
          // What the line was before: pino's info with the same object and message.
          const before = (m: string, u: string, s: number, d: number) => {
            const at = u.indexOf("?");
            const p = at < 0 ? u : u.slice(0, at);
            const ms = Math.round(d * 100) / 100;
            loggerInto(expected, debug, account).info({ method: m, path: p, status: s, ms }, `${m} ${p} ${s} ${ms} ms`);
          };
          before(method, url, status, durationMs);
          requestLogger(loggerInto(written, debug, account))(method, url, status, durationMs);
          assert.equal(written.length, 1);
          assert.equal(sameTime(written[0]), sameTime(expected[0]));
          assert.doesNotThrow(() => JSON.parse(written[0] ?? ""));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("of one route (routeLogger) are the lines requestLogger writes for its method and path", () => {
    const text = fc.string({ unit: "binary", maxLength: 40 }).filter((path) => !path.includes("?"));
    fc.assert(
      fc.property(
        fc.constantFrom("GET", "POST", "HEAD"),
        text,
        fc.integer({ min: 100, max: 599 }),
        fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY)),
        fc.boolean(),
        text,
        (method, path, status, durationMs, debug, account) => {
          const expected: string[] = [];
          const written: string[] = [];
          requestLogger(loggerInto(expected, debug, account))(method, path, status, durationMs);
          routeLogger(loggerInto(written, debug, account), method, path)(status, durationMs);
          assert.equal(written.length, 1);
          assert.equal(sameTime(written[0]), sameTime(expected[0]));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("are not written when the logger's level is above info", () => {
    const written: string[] = [];
    const logger = loggerInto(written, false, "api.a");
    logger.level = "warn";
    requestLogger(logger)("GET", "/api/health", 200, 1);
    routeLogger(logger, "POST", "/api/message")(200, 1);
    assert.deepEqual(written, []);
  });
});
