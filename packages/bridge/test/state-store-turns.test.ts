// The state file's rows held for the turn's commit (core/turn-rows.ts, core/chunked-statements.ts), against a simple
// model: whatever interleaving of queued messages, confirmations (with their copies' ids), id-map saves and turns,
// the file holds exactly the unconfirmed messages in order and the id map as last recorded; what was committed is
// in the file even when the process ends without closing it (kill -9); and confirmed rows go by ranges.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import fc from "fast-check";
import { seqRanges } from "../src/core/chunked-statements.ts";
import { openSqliteStateStore } from "../src/core/sqlite-state-store.ts";
import type { StoredCopy } from "../src/core/state-store.ts";
import { type Model, play, step } from "./state-turns-scenario.ts";

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "state-turns-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function assertHolds(path: string, model: Model): void {
  const store = openSqliteStateStore(path, { idMapSize: 10_000 });
  try {
    assert.deepEqual(
      store.queued().map((row) => [row.seq, row.message.text]),
      [...model.queued],
    );
    assert.deepEqual(new Map(store.loadCopies("g", 10_000)), model.copies);
  } finally {
    store.close();
  }
}

describe("the state file's rows held for the turn's commit", () => {
  it("splits confirmed numbers into ranges of consecutive ones and single ones, covering each exactly once", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 200 }), { maxLength: 100 }), (seqs) => {
        const { ranges, singles } = seqRanges(seqs);
        const covered = [...singles];
        for (const [first, last] of ranges) {
          assert.ok(last > first, "a range has two numbers at least");
          for (let seq = first; seq <= last; seq++) covered.push(seq);
        }
        assert.deepEqual(
          covered.sort((a, b) => a - b),
          [...new Set(seqs)].sort((a, b) => a - b),
        );
        // Nothing that could have joined a range is left alone.
        const distinct = new Set(seqs);
        for (const seq of singles) assert.ok(!distinct.has(seq - 1) && !distinct.has(seq + 1), `${seq} is in a range`);
      }),
    );
  });

  it("holds exactly the unconfirmed messages and the last recorded ids, whatever the interleaving", async (t) => {
    const dir = tempDir(t);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const path = join(dir, `s${run++}.db`);
        const model: Model = { queued: new Map(), copies: new Map() };
        const store = openSqliteStateStore(path, { idMapSize: 10_000 });
        try {
          await play(store, steps, model);
        } finally {
          store.close();
        }
        assertHolds(path, model);
      }),
      { numRuns: 60 },
    );
  });

  it("keeps what each commit acknowledged when the process ends without closing the file (as kill -9)", (t) => {
    const dir = tempDir(t);
    // Scenarios played in one child process that exits without closing its stores, each ending with a commit.
    const scenarios = fc.sample(fc.array(step, { minLength: 5, maxLength: 60 }), { numRuns: 12, seed: 4242 });
    writeFileSync(join(dir, "scenarios.json"), JSON.stringify(scenarios));
    const script = [
      `import { openSqliteStateStore } from "./packages/bridge/src/core/sqlite-state-store.ts";`,
      `import { play } from "./packages/bridge/test/state-turns-scenario.ts";`,
      `const nextTurn = () => new Promise((resolve) => setImmediate(resolve));`,
      `import { readFileSync, writeFileSync } from "node:fs";`,
      `const scenarios = JSON.parse(readFileSync(${JSON.stringify(join(dir, "scenarios.json"))}, "utf8"));`,
      `const models = [];`,
      `for (const [n, steps] of scenarios.entries()) {`,
      `  const store = openSqliteStateStore(${JSON.stringify(dir)} + "/k" + n + ".db", { idMapSize: 10000 });`,
      `  const model = { queued: new Map(), copies: new Map() };`,
      `  await play(store, steps, model);`,
      // Once the last confirmations' turn is over too: everything is committed, nothing closed.
      `  await nextTurn();`,
      `  await nextTurn();`,
      `  await store.committed();`,
      `  models.push({ queued: [...model.queued], copies: [...model.copies] });`,
      `}`,
      `writeFileSync(${JSON.stringify(join(dir, "models.json"))}, JSON.stringify(models));`,
      `process.exit(0);`,
    ];
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script.join("\n")], {
      encoding: "utf8",
      timeout: 120_000,
    });
    assert.equal(child.status, 0, child.stderr);
    const models = JSON.parse(readFileSync(join(dir, "models.json"), "utf8")) as {
      queued: [number, string][];
      copies: [string, StoredCopy[]][];
    }[];
    assert.equal(models.length, scenarios.length);
    for (const [n, model] of models.entries()) {
      assertHolds(join(dir, `k${n}.db`), { queued: new Map(model.queued), copies: new Map(model.copies) });
    }
  });
});
