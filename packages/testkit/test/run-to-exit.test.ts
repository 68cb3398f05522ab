import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runToExit } from "../src/run-to-exit.ts";

const node = (script: string, timeoutMs?: number) =>
  runToExit({ command: process.execPath, args: ["-e", script], ...(timeoutMs ? { timeoutMs } : {}) });

describe("runToExit", () => {
  it("collects stdout and stderr apart, with the exit code", async () => {
    const run = await node('process.stdout.write("out"); process.stderr.write("err"); process.exit(3)');
    assert.deepEqual(run, { code: 3, signal: null, stdout: "out", stderr: "err", timedOut: false });
  });

  it("kills a child that outlives the timeout and says so", async () => {
    const run = await node("setInterval(() => {}, 1000)", 200);
    assert.equal(run.timedOut, true);
    assert.equal(run.code, null);
    assert.equal(run.signal, "SIGKILL");
  });

  it("rejects when the command cannot start", async () => {
    await assert.rejects(runToExit({ command: "/nonexistent/command", args: [] }), /ENOENT/);
  });
});
