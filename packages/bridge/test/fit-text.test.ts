// fitText: a text in at most N parts that each fit a platform's limit as the platform measures it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { fitText, measure, utf8Cost } from "../src/accounts/fit-text.ts";

const xmlish = (code: number) => (code === 0x26 ? 5 : code === 0x3c ? 4 : utf8Cost(code));
const text = fc.string({ unit: fc.constantFrom("a", "b", " ", "\n", "é", "😀", "&", "<"), maxLength: 3000 });

describe("fitText", () => {
  it("returns a text that fits as it is, with its prefix", () => {
    assert.deepEqual(fitText("hello", { limit: 20 }, { prefix: "<bob> ", clipped: "x" }), ["<bob> hello"]);
  });

  it("splits at spaces into at most maxParts, then clips the last with the marker", () => {
    const parts = fitText("word ".repeat(100).trim(), { limit: 60 }, { prefix: "<b> ", maxParts: 3, clipped: "(cut)" });
    assert.equal(parts.length, 3);
    assert.ok(parts.every((part) => part.startsWith("<b> ") && part.length <= 60));
    assert.ok(parts[0]?.endsWith("word") && parts[2]?.endsWith(" (cut)"));
  });

  it("every part measures at most the limit, in the platform's units, for any text", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 16, max: 400 }), fc.integer({ min: 1, max: 4 }), (t, limit, maxParts) => {
        const parts = fitText(t, { limit, cost: xmlish }, { prefix: "<n> ", maxParts, clipped: "<clipped>" });
        assert.ok(parts.length <= maxParts);
        for (const part of parts) {
          assert.ok(measure(part, xmlish) <= limit, `${measure(part, xmlish)} > ${limit}`);
          assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(part), "a lone high surrogate");
          assert.ok(!/(?<![\ud800-\udbff])[\udc00-\udfff]/.test(part), "a lone low surrogate");
        }
      }),
      { numRuns: 500 },
    );
  });

  it("loses nothing but the whitespace at the cuts when the parts are enough", () => {
    fc.assert(
      fc.property(text, (t) => {
        const parts = fitText(t, { limit: 50 }, { maxParts: 1000, clipped: "<clipped>" });
        assert.equal(parts.join("").replace(/\s/g, ""), t.replace(/\s/g, ""));
      }),
      { numRuns: 300 },
    );
  });

  it("is linear: 1 MB of one word in 4 parts", () => {
    const parts = fitText("x".repeat(1_000_000), { limit: 4096 }, { maxParts: 4, clipped: "<clipped>" });
    assert.equal(parts.length, 4);
    assert.ok(parts[3]?.endsWith(" <clipped>"));
  });
});
