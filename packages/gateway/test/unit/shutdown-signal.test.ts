import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ShutdownSignal } from "../../src/dispatch/shutdown.ts";

describe("ShutdownSignal.guard", () => {
  it("cuts what is still running when the grace period ends, and only that", async () => {
    const signal = new ShutdownSignal();
    const cuts: string[] = [];
    let finish!: (value: string) => void;
    const running = signal.guard(
      () => new Promise<string>((resolve) => (finish = resolve)),
      () => cuts.push("running"),
    );
    const settled = signal.guard(
      async () => "done",
      () => cuts.push("settled"),
    );
    assert.equal(await settled, "done");
    signal.cutNow();
    assert.deepEqual(cuts, ["running"]);
    finish("after the cut");
    assert.equal(await running, "after the cut");
    assert.equal(signal.cut, 0, "counting is the cut function's business");
  });

  it("a run that fails, at once or later, rejects and leaves nothing to cut", async () => {
    const signal = new ShutdownSignal();
    const cuts: string[] = [];
    const thrown = signal.guard(
      () => {
        throw new Error("at once");
      },
      () => cuts.push("thrown"),
    );
    const rejected = signal.guard(
      () => Promise.reject(new Error("later")),
      () => cuts.push("rejected"),
    );
    await assert.rejects(thrown, /at once/);
    await assert.rejects(rejected, /later/);
    signal.cutNow();
    assert.deepEqual(cuts, []);
  });

  it("cuts at once what starts after the grace period ended", async () => {
    const signal = new ShutdownSignal();
    signal.cutNow();
    const cuts: string[] = [];
    assert.equal(
      await signal.guard(
        async () => 1,
        () => cuts.push("late"),
      ),
      1,
    );
    assert.deepEqual(cuts, ["late"]);
  });
});
