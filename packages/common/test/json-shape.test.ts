import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { JsonShapeScanner, type ShapeLimits, type ShapeProblem, wholeBodyShapeProblem } from "../src/json-shape.ts";

/** Feeds `text` to a scanner in pieces cut at `cuts` (so escapes and strings straddle chunk boundaries). */
function scan(text: string, limits: ShapeLimits, cuts: number[] = []): ShapeProblem | undefined {
  const bytes = Buffer.from(text);
  const scanner = new JsonShapeScanner(limits);
  let start = 0;
  for (const cut of [...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
    const problem = scanner.push(bytes.subarray(start, cut));
    if (problem) return problem;
    start = cut;
  }
  return undefined;
}

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === "object") return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

function widestObject(value: unknown): number {
  if (Array.isArray(value)) return Math.max(0, ...value.map(widestObject));
  if (value !== null && typeof value === "object") {
    const members = Object.values(value);
    return Math.max(members.length, ...members.map(widestObject));
  }
  return 0;
}

const UNLIMITED = { maxDepth: 10_000, maxValues: 1e9, maxKeys: 1e9 };
// Strings full of what the scanner must not mistake for structure.
const tricky = fc.string({ unit: fc.constantFrom("[", "]", "{", "}", '"', "\\", ",", "a", "é", "\n", "\u2028") });
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    tricky,
    fc.integer(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(tricky, tie("value"), { maxKeys: 4 }),
  ),
})).value;

describe("JSON shape scanner", () => {
  it("measures nesting exactly, whatever the strings hold and wherever the chunks are cut", () => {
    fc.assert(
      fc.property(json, fc.array(fc.nat(), { maxLength: 6 }), fc.integer({ min: 0, max: 6 }), (value, cuts, max) => {
        const text = JSON.stringify(value);
        const expected = depthOf(value) > max ? "depth" : undefined;
        assert.equal(scan(text, { ...UNLIMITED, maxDepth: max }, cuts), expected, text);
      }),
      { numRuns: 500 },
    );
  });

  it("counts the members of each object", () => {
    fc.assert(
      fc.property(json, fc.array(fc.nat(), { maxLength: 6 }), fc.integer({ min: 1, max: 4 }), (value, cuts, max) => {
        const text = JSON.stringify(value);
        const expected = widestObject(value) > max ? "keys" : undefined;
        assert.equal(scan(text, { ...UNLIMITED, maxKeys: max }, cuts), expected, text);
      }),
      { numRuns: 500 },
    );
  });

  it("bounds the number of values, in arrays and objects alike", () => {
    const limits = { maxDepth: 128, maxValues: 1000, maxKeys: 1e9 };
    assert.equal(scan(`[${"0,".repeat(999)}0]`, limits), undefined);
    assert.equal(scan(`[${"0,".repeat(1000)}0]`, limits), "values");
    assert.equal(scan(`[${'"a",'.repeat(1000)}"a"]`, limits), "values");
    assert.equal(scan(`{"a":"${"\\\\,".repeat(5000)}"}`, limits), undefined, "commas inside a string are text");
  });

  it("stops at the first level too deep, and on brackets closed more often than opened", () => {
    const limits = { maxDepth: 128, maxValues: 1e9, maxKeys: 1e9 };
    assert.equal(scan(`${"[".repeat(128)}${"]".repeat(128)}`, limits), undefined);
    assert.equal(scan(`${"[".repeat(5_000_000)}`, limits), "depth");
    assert.equal(scan(`{"a":"${"[".repeat(1000)}"}`, limits), undefined);
    assert.equal(scan(`]${"[".repeat(1000)}`, limits), "unbalanced");
  });

  it("is linear in a string made of escapes", () => {
    // Quadratic rescanning would take minutes here; linear takes milliseconds (no timing is asserted).
    const text = `{"a":"${"\\n".repeat(2_000_000)}"}`;
    assert.equal(scan(text, { maxDepth: 1, maxValues: 10, maxKeys: 10 }), undefined);
    assert.equal(scan(`${text}[[`, { maxDepth: 1, maxValues: 10, maxKeys: 10 }), "depth");
  });

  it("answers a body after reset() as a new scanner does, whatever the body before left behind", () => {
    // Bodies cut anywhere (inside strings, after a backslash, deep in brackets) and problems that stopped a scan early.
    const body = fc.oneof(
      json.map((value) => JSON.stringify(value)),
      tricky,
      json.map((value) => JSON.stringify(value)).chain((text) => fc.nat(text.length).map((cut) => text.slice(0, cut))),
    );
    const limits = fc.record({
      maxDepth: fc.integer({ min: 1, max: 5 }),
      maxValues: fc.integer({ min: 1, max: 20 }),
      maxKeys: fc.integer({ min: 1, max: 4 }),
    });
    fc.assert(
      fc.property(limits, fc.array(body, { minLength: 1, maxLength: 6 }), (shape, bodies) => {
        const reused = new JsonShapeScanner(shape);
        for (const text of bodies) {
          const bytes = Buffer.from(text);
          assert.equal(reused.reset().push(bytes), new JsonShapeScanner(shape).push(bytes));
          assert.equal(wholeBodyShapeProblem(bytes, shape), new JsonShapeScanner(shape).push(bytes));
        }
      }),
      { numRuns: 1000 },
    );
  });
});
