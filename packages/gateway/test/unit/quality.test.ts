import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PriorityQueue, type Waiting } from "../../src/dispatch/priority-queue.ts";
import { QualityTracker } from "../../src/routing/quality.ts";

function tracker() {
  const clock = { now: 0 };
  const quality = new QualityTracker(
    { errorRateThreshold: 0.5, minRequests: 3, windowSeconds: 10, cooldownSeconds: 5, ttftPenaltyThresholdMs: 1000 },
    () => clock.now,
  );
  return { quality, clock };
}

describe("quality tracker (controlled clock)", () => {
  it("one failure never excludes; over the threshold with enough outcomes it does, per model", () => {
    const { quality } = tracker();
    quality.record("b", "m", false, undefined);
    assert.ok(quality.admits("b", "m"), "below min_requests");
    quality.record("b", "m", true, 100);
    quality.record("b", "m", false, undefined);
    assert.equal(quality.state("b", "m"), "open");
    assert.equal(quality.admits("b", "m"), false);
    assert.ok(quality.admits("b", "other"), "another model on the same backend is unaffected");
  });

  it("half-open after the cool-down: one trial; failure re-opens, success closes with a clean window", () => {
    const { quality, clock } = tracker();
    for (let i = 0; i < 3; i++) quality.record("b", "m", false, undefined);
    clock.now = 4_999;
    assert.equal(quality.admits("b", "m"), false);
    clock.now = 5_000;
    assert.equal(quality.state("b", "m"), "half_open");
    assert.ok(quality.beginAttempt("b", "m"), "the trial");
    assert.equal(quality.beginAttempt("b", "m"), false, "only one trial at a time");
    assert.equal(quality.admits("b", "m"), false);
    quality.record("b", "m", false, undefined);
    assert.equal(quality.state("b", "m"), "open", "a failed trial re-opens");
    clock.now = 10_000;
    assert.ok(quality.beginAttempt("b", "m"));
    quality.record("b", "m", undefined, undefined);
    assert.ok(quality.admits("b", "m"), "a trial without a verdict (client left) frees the trial");
    assert.ok(quality.beginAttempt("b", "m"));
    quality.record("b", "m", true, 50);
    assert.equal(quality.state("b", "m"), "closed");
    assert.equal(quality.errorRate("b", "m"), 0);
  });

  it("old outcomes leave the window", () => {
    const { quality, clock } = tracker();
    quality.record("b", "m", true, 100);
    quality.record("b", "m", true, 100);
    clock.now = 20_000;
    quality.record("b", "m", false, undefined);
    quality.record("b", "m", false, undefined);
    assert.equal(quality.state("b", "m"), "closed", "only two outcomes in the window");
  });

  it("slow time to first token lowers the smart score factor", () => {
    const { quality } = tracker();
    assert.equal(quality.ttftFactor("b", "m"), 1, "nothing known");
    quality.record("b", "m", true, 800);
    assert.equal(quality.ttftFactor("b", "m"), 1);
    quality.record("b", "m", true, 2200); // average 1500: half way to twice the threshold
    assert.equal(quality.ttftFactor("b", "m"), 0.5);
  });
});

describe("priority queue", () => {
  const entry = (name: string, priority: "high" | "normal", eligible: string[], log: string[]): Waiting => ({
    priority,
    eligible: new Set(eligible),
    offer: () => {
      log.push(name);
      return true;
    },
  });

  it("high before normal, FIFO within a priority, only to requests the freed backend can serve", () => {
    const log: string[] = [];
    const queue = new PriorityQueue<Waiting>(10);
    for (const w of [
      entry("n1", "normal", ["a"], log),
      entry("x1", "normal", ["b"], log),
      entry("h1", "high", ["a"], log),
      entry("n2", "normal", ["a"], log),
    ])
      assert.ok(queue.add(w));
    let room = 2;
    queue.slotFreed("a", () => room-- > 0);
    assert.deepEqual(log, ["h1", "n1"]);
    queue.slotFreed("b", () => true);
    assert.deepEqual(log, ["h1", "n1", "x1"], "n2 waits for backend a");
    assert.equal(queue.size, 1);
  });

  it("is bounded", () => {
    const queue = new PriorityQueue<Waiting>(1);
    assert.ok(queue.add(entry("a", "normal", [], [])));
    assert.equal(queue.add(entry("b", "high", [], [])), false);
  });
});
