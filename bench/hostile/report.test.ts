import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bridgeCases, fill, gatewayCases, nested, wideObject } from "./payloads.ts";
import { longest, type PhaseResult, percentile, renderReport } from "./report.ts";

const phase = (
  name: string,
  probe: number[],
  normal: number[],
  service: "gateway" | "bridge" = "gateway",
): PhaseResult => ({
  service,
  name,
  probe,
  normal,
  normalErrors: 0,
  hostileSent: name === "baseline" ? 0 : 8,
  hostileStatuses: new Map(name === "baseline" ? [] : [["400", 8]]),
  rssMb: 120,
  loopDelayMs: Math.max(...probe) / 2,
  busyMs: Math.max(...probe) / 4,
  gcMs: 1.5,
});

describe("hostile bench", () => {
  it("builds every hostile body within the service's body limit, as JSON the service must parse", () => {
    for (const hostile of [...gatewayCases(64 * 1024), ...bridgeCases(32 * 1024)]) {
      const limit = hostile.service === "gateway" ? 64 * 1024 : 32 * 1024;
      // Fixed sizes, within the default limits: 40,000 entries (bridge), 12 words of 60,000 letters (gateway).
      if (hostile.name.startsWith("40,000") || hostile.name.startsWith("letter runs")) continue;
      assert.ok(hostile.body.length <= limit, `${hostile.name}: ${hostile.body.length} bytes`);
      assert.ok(hostile.body.length > limit * 0.9, `${hostile.name} fills the limit`);
      assert.doesNotThrow(() => JSON.parse(hostile.body.toString()), hostile.name);
    }
  });

  it("fills and nests exactly up to the budget", () => {
    assert.equal(fill("[", "0,", "0]", 11), "[0,0,0,0,0]");
    assert.equal(nested("", "[", "", "]", "", 7), "[[[]]]");
    assert.equal(wideObject(29), '{"k0":0,"k1":0,"k2":0,"k3":0}');
  });

  it("reports each case's medians across runs, each run's busy span, and the verdict on the medians", () => {
    const report = renderReport(
      [
        phase("baseline", [1, 2, 4], [1, 1, 2]),
        phase("long string", [1, 40], [1, 2]),
        phase("baseline", [1, 2, 4], [1, 1, 2]),
        phase("long string", [1, 200], [1, 2]),
        phase("baseline", [1, 2, 4], [1, 1, 2]),
        phase("long string", [1, 60], [1, 2]),
      ],
      20,
    );
    assert.match(
      report,
      /\| gateway \| long string \| 24 \| 400×24 \| 60\.0 \| 30\.0 \| 15\.0 \| 10\.0 \/ 50\.0 \/ 15\.0 \|/,
    );
    assert.match(
      report,
      /gateway: its own longest busy span 15\.0 ms \(long string\), baseline 1\.0 ms; goal < 20 ms: met\./,
    );
  });

  it("reports the longest stall per service with ratios against its baseline, and the verdict", () => {
    assert.equal(percentile([5, 1, 4, 2, 3], 50), 3);
    assert.equal(longest([3, 9, 1]), 9);
    const report = renderReport(
      [
        phase("baseline", [1, 2, 4], [1, 1, 2]),
        phase("deep arrays", [1, 12, 2], [1, 2, 4]),
        phase("baseline", [1, 3], [1, 2], "bridge"),
        phase("deep arrays", [900, 3], [1, 40], "bridge"),
      ],
      20,
    );
    assert.match(
      report,
      /\| gateway \| deep arrays \| 8 \| 400×8 \| 12\.0 \| 6\.0 \| 3\.0 \| 3\.0 \| 1\.5 \| 12\.0 \| 2\.00 \| 4\.00 \| 0 \| 3\.0× \| 2\.0× \| 120 \|/,
    );
    assert.match(
      report,
      /gateway: its own longest busy span 3\.0 ms \(deep arrays\), baseline 1\.0 ms; goal < 20 ms: met\. Longest stall seen from outside 12\.0 ms \(deep arrays\), baseline 4\.0 ms/,
    );
    assert.match(
      report,
      /bridge: its own longest busy span 225\.0 ms \(deep arrays\), baseline 0\.8 ms; goal < 20 ms: NOT met/,
    );
  });
});
