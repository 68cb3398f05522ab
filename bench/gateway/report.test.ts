import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";
import type { LoadResult } from "./load.ts";
import { switchboardConfig } from "./switchboard.ts";
import { type CaseResult, renderReport } from "./table.ts";
import { startSwitchboard } from "./targets.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const run = (rps: number, p50: number): LoadResult => ({
  requests: rps * 5,
  totalRequests: rps * 6,
  requestsPerSecond: rps,
  latencyMs: { p50, p90: p50 * 2, p99: p50 * 3, max: p50 * 4 },
  firstByteMs: { p50, p90: p50, p99: p50, max: p50 },
  errors: 0,
  non2xx: 0,
  invalid: 0,
});

describe("gateway bench report", () => {
  it("writes the gateway config in Nexus's format, every feature set as in examples/gateway.toml", () => {
    // smol-toml builds null-prototype tables: compare plain copies.
    const plain = (toml: string) => JSON.parse(JSON.stringify(parse(toml))) as Record<string, unknown>;
    const config = plain(switchboardConfig(8123, "http://127.0.0.1:9000"));
    const example = plain(readFileSync(join(root, "examples/gateway.toml"), "utf8"));
    assert.deepEqual(config["backends"], [
      { name: "bench-upstream", url: "http://127.0.0.1:9000", type: "generic", priority: 1 },
    ]);
    assert.deepEqual(config["server"], { ...(example["server"] as object), port: 8123 });
    for (const section of Object.keys(example).filter((name) => name !== "server" && name !== "backends")) {
      assert.deepEqual(config[section], example[section], `[${section}] as in examples/gateway.toml`);
    }
  });

  it("reports Switchboard as unavailable, with the reason, when its bin is missing", async () => {
    const root = mkdtempSync(join(tmpdir(), "bench-root-"));
    try {
      const target = await startSwitchboard(
        {
          root,
          startServer: () => Promise.reject(new Error("must not be started")),
          profileFlags: () => [],
          log: () => {},
          temporaryDirs: [],
        },
        "http://127.0.0.1:1",
        1,
      );
      assert.equal(target.url, undefined);
      assert.match(target.unavailable ?? "", /does not exist yet/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("computes the ratios and verdicts, and never invents a number for an unavailable path", () => {
    const results: CaseResult[] = [
      { caseName: "json c1", stream: false, connections: 1, target: "direct", result: run(10_000, 0.1) },
      { caseName: "json c1", stream: false, connections: 1, target: "proxy", result: run(4_000, 0.25) },
      { caseName: "json c1", stream: false, connections: 1, target: "switchboard", result: run(3_600, 0.28) },
      { caseName: "json c1", stream: false, connections: 1, target: "portkey", result: run(300, 1.1) },
      { caseName: "stream c1", stream: true, connections: 1, target: "direct", result: run(9_000, 0.1) },
      { caseName: "stream c1", stream: true, connections: 1, target: "switchboard", unavailable: "did not start" },
    ];
    const report = renderReport(results, { durationMs: 5000, warmupMs: 1000, rounds: 1, pinned: true });
    assert.match(report, /\| json c1 \| 0\.90× \| 12\.00× \|/);
    assert.match(report, /json c1: 0\.90× the minimal proxy \(≥ 1\.0×: MISSED; stretch 1\.2×\)/);
    assert.match(report, /first byte p50 0\.030 ms after the proxy's \(MISSED\); 12\.0× Portkey \(≥ 10×: met\)/);
    assert.match(report, /added p50 0\.180 ms \(< 0\.2 ms: met\)/);
    assert.match(report, /\| stream c1 \| Switchboard gateway \| unavailable: did not start \|/);
    assert.match(report, /stream c1: not measured \(did not start\)/);
  });
});
