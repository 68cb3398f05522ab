// Runs the soak end to end for 2 minutes (short sample interval, a restart of each chat server, several phases of
// the flapping backend) and checks that it produced a sane report: every process sampled with every figure, every
// kind of load exercised, the ledger wired to every destination. It asserts nothing about timings or slopes.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { SoakResult } from "./report.ts";

const here = fileURLToPath(new URL(".", import.meta.url));
/** 2 minutes of soak, its start-up, the final drain and quiet sample (bounded to 60 s each) and a loaded machine. */
const BOUND_MS = 8 * 60_000;

function runSoak(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(here, "main.ts"), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    // SIGTERM first: the soak then stops every process it started.
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 20_000).unref();
    }, BOUND_MS);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("soak bench", () => {
  const dir = mkdtempSync(join(tmpdir(), "soak-test-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("runs both services for 2 minutes and reports on every process, load and destination", {
    timeout: BOUND_MS + 60_000,
  }, async () => {
    const json = join(dir, "soak.json");
    const { code, output } = await runSoak([
      "--minutes",
      "2",
      "--sample-seconds",
      "2",
      "--flap-minutes",
      "0.2",
      "--restart-minutes",
      "0.4",
      "--lifecycle-seconds",
      "10",
      "--quiet-minutes",
      "0.5",
      "--keep-snapshots",
      join(dir, "snapshots"),
      "--json",
      json,
    ]);
    assert.equal(code, 0, output);
    assert.ok(existsSync(json), output);
    const result = JSON.parse(readFileSync(json, "utf8")) as SoakResult;

    assert.deepEqual(
      result.processes.map((p) => p.name),
      ["gateway", "bridge", "baseline"],
    );
    for (const process of result.processes) {
      // Every 2 s for 2 minutes, less the quiet moments (each waits for the bridge to settle, up to a minute).
      assert.ok(process.samples.length >= 10, `${process.name}: ${process.samples.length} samples\n${output}`);
      const last = process.samples.at(-1);
      assert.ok((last?.rssBytes ?? 0) > 10 * 2 ** 20, `${process.name}: RSS ${last?.rssBytes}`);
      assert.ok((last?.heapUsedBytes ?? 0) > 2 ** 20, `${process.name}: heap ${last?.heapUsedBytes}`);
      assert.ok((last?.handles ?? 0) > 0, `${process.name}: handles ${last?.handles}`);
      assert.ok(last?.loopDelayP99Seconds !== undefined, `${process.name}: no event-loop delay`);
      assert.ok(process.quiet.length >= 2, `${process.name}: quiet samples after warm-up and at the end`);
      assert.ok((process.quiet.at(-1)?.heapUsedBytes ?? 0) > 2 ** 20, `${process.name}: no live heap`);
    }
    for (const name of ["gateway", "bridge", "baseline"]) {
      const kept = result.snapshots[name] ?? [];
      assert.ok(kept.length >= 2, `${name}: a heap snapshot of each quiet moment kept: ${kept.join(", ")}`);
      for (const file of kept) assert.ok(existsSync(file), file);
    }
    for (const kind of ["chat", "stream", "stream-aborted", "embeddings", "dashboard", "lifecycle-load", "key-churn"]) {
      assert.ok((result.gateway.done[kind] ?? 0) > 0, `no gateway ${kind}: ${JSON.stringify(result.gateway.done)}`);
    }
    assert.ok(result.gateway.flapTransitions >= 2, "the flapping backend changed phase");
    assert.ok((result.gateway.expected["client abort mid-stream"] ?? 0) > 0, "aborted streams counted apart");
    assert.ok(
      (result.bridge.restarts.irc ?? 0) >= 1 && (result.bridge.restarts.xmpp ?? 0) >= 1,
      JSON.stringify(result.bridge.restarts),
    );

    // Each message has 3 or 4 destinations: the ledger saw sends from every source and arrivals at every destination.
    const ledger = result.bridge.ledger;
    assert.ok(ledger.accepted > 0 && ledger.expected >= 3 * ledger.accepted, JSON.stringify(ledger));
    assert.ok(ledger.lost < ledger.expected, "some deliveries arrived");

    for (const name of ["gateway", "bridge", "baseline"]) assert.match(output, new RegExp(`^\\| ${name} \\|`, "m"));
    assert.match(output, /^verdict:$/m);
    assert.match(output, /zero lost bridge messages/);
  });
});
