import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import pino from "pino";
import { type AccessFields, accessLineWriter } from "../../src/http/access-line.ts";

/** A logger as the gateway makes one (createLogger's options), writing into `lines`. */
function loggerInto(lines: string[], bindings?: Record<string, unknown>) {
  const logger = pino(
    { level: "info", base: undefined, redact: ["req.headers.authorization", "*.apiKey"] },
    { write: (line: string) => void lines.push(line) },
  );
  return bindings === undefined ? logger : logger.child(bindings);
}

const sameTime = (line: string | undefined) => (line ?? "").replace(/"time":\d+/, '"time":0');

const text = fc.string({ unit: "binary", maxLength: 40 });
const count = fc.oneof(fc.nat(), fc.double(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0));
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const fields: fc.Arbitrary<AccessFields> = fc.record({
  requestId: text,
  method: fc.constantFrom("GET", "POST", "DELETE"),
  path: text,
  status: fc.integer({ min: 100, max: 599 }),
  ms: count,
  model: optional(text),
  backend: optional(text),
  routeReason: optional(text),
  promptTokens: optional(count),
  completionTokens: optional(count),
  key: optional(text),
});

describe("access lines", () => {
  it("are the very line pino writes for the same fields and message, whatever the text holds", () => {
    fc.assert(
      fc.property(fields, text, fc.boolean(), (access, message, withBindings) => {
        const expected: string[] = [];
        const written: string[] = [];
        const bindings = withBindings ? { service: "gateway" } : undefined;
        loggerInto(expected, bindings).info({ ...access }, message);
        const write = accessLineWriter(loggerInto(written, bindings));
        // Twice: the second line is built from the values the first one quoted (and kept).
        write(access, message);
        write({ ...access }, message);
        assert.equal(written.length, 2);
        assert.equal(sameTime(written[0]), sameTime(expected[0]));
        assert.equal(sameTime(written[1]), sameTime(expected[0]));
        assert.doesNotThrow(() => JSON.parse(written[0] ?? ""));
      }),
      { numRuns: 500 },
    );
  });
});
