import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ShutdownSignal } from "../../src/dispatch/shutdown.ts";

describe("ShutdownSignal", () => {
  it("cuts what entered and has not left when the grace period ends, and only that", () => {
    const signal = new ShutdownSignal();
    const cuts: string[] = [];
    const running = signal.enter(() => cuts.push("running"));
    const settled = signal.enter(() => cuts.push("settled"));
    signal.leave(settled);
    signal.cutNow();
    assert.deepEqual(cuts, ["running"]);
    signal.leave(running);
    assert.equal(signal.cut, 0, "counting is the cut function's business");
  });

  it("leaving twice is harmless", () => {
    const signal = new ShutdownSignal();
    const cuts: string[] = [];
    const entry = signal.enter(() => cuts.push("cut"));
    signal.leave(entry);
    signal.leave(entry);
    signal.cutNow();
    assert.deepEqual(cuts, []);
  });

  it("lets a request that is cut leave while the others are cut", () => {
    const signal = new ShutdownSignal();
    const cuts: string[] = [];
    const entries = ["a", "b", "c"].map((name) => {
      const entry = signal.enter(() => {
        cuts.push(name);
        signal.leave(entry);
      });
      return entry;
    });
    assert.equal(entries.length, 3);
    signal.cutNow();
    assert.deepEqual(cuts.sort(), ["a", "b", "c"]);
  });

  it("cuts at once what enters after the grace period ended", () => {
    const signal = new ShutdownSignal();
    signal.cutNow();
    const cuts: string[] = [];
    assert.equal(
      signal.enter(() => cuts.push("late")),
      undefined,
    );
    assert.deepEqual(cuts, ["late"]);
  });
});
