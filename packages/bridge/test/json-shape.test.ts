import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { jsonShapeProblem } from "../src/accounts/api/json-shape.ts";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from "../src/accounts/api/limits.ts";

/** The plain byte-by-byte scan the fast one must agree with: containers and separators are values; a closing
 * bracket that closes nothing ends the scan (a syntax error, for JSON.parse to name). */
function reference(bytes: Uint8Array): "depth" | "values" | undefined {
  let depth = 0;
  let values = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 0x22) {
      for (i++; i < bytes.length; i++) {
        if (bytes[i] === 0x22) break;
        if (bytes[i] === 0x5c) i++;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return "depth";
      if (++values > MAX_JSON_VALUES) return "values";
    } else if (c === 0x7d || c === 0x5d) {
      if (--depth < 0) return undefined;
    } else if (c === 0x2c && ++values > MAX_JSON_VALUES) return "values";
  }
  return undefined;
}

const kind = (problem: string | undefined) =>
  problem === undefined ? undefined : problem.includes("nested") ? "depth" : "values";

describe("bridge JSON shape scan", () => {
  it("agrees with a byte-by-byte scan on any text, long strings and escapes included", () => {
    const piece = fc.oneof(
      fc.constantFrom("{", "}", "[", "]", ",", '"', "\\", '\\"', "\\\\", "x", ":", "é"),
      fc.string({ maxLength: 200 }),
      fc.nat({ max: 3000 }).map((n) => "y".repeat(n)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const bytes = Buffer.from(pieces.join(""));
        assert.equal(kind(jsonShapeProblem(bytes)), reference(bytes));
      }),
      { numRuns: 500 },
    );
  });

  it("skips a long string's brackets and commas, and stops at the first level too deep", () => {
    const text = "[,{".repeat(1000);
    assert.equal(jsonShapeProblem(Buffer.from(JSON.stringify({ text }))), undefined);
    const deep = `${"[".repeat(MAX_JSON_DEPTH + 1)}${"]".repeat(MAX_JSON_DEPTH + 1)}`;
    assert.match(jsonShapeProblem(Buffer.from(deep)) ?? "", /nested deeper/);
  });
});
