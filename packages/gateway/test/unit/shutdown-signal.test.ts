import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ShutdownSignal } from "../../src/dispatch/shutdown.ts";

describe("ShutdownSignal", () => {
  it("cuts what entered and has not left when the grace period ends, and only that", () => {
    const signal = new ShutdownSignal();
    const cuts: string[] = [];
    const running = () => cuts.push("running");
    const settled = () => cuts.push("settled");
    signal.enter(running);
    signal.enter(settled);
    signal.leave(settled);
    signal.cutNow();
    assert.deepEqual(cuts, ["running"]);
    signal.leave(running);
    assert.equal(signal.cut, 0, "counting is the cut function's business");
  });

  it("leaving twice, or without entering, is harmless", () => {
    const signal = new ShutdownSignal();
    const cuts: string[] = [];
    const cut = () => cuts.push("cut");
    signal.leave(cut);
    signal.enter(cut);
    signal.leave(cut);
    signal.leave(cut);
    signal.cutNow();
    assert.deepEqual(cuts, []);
  });

  it("cuts at once what enters after the grace period ended", () => {
    const signal = new ShutdownSignal();
    signal.cutNow();
    const cuts: string[] = [];
    signal.enter(() => cuts.push("late"));
    assert.deepEqual(cuts, ["late"]);
  });
});
