import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Deadline } from "../../src/backends/http1/deadline.ts";

const expiry = () => {
  let fired = 0;
  let resolve: () => void = () => {};
  const next = () => new Promise<void>((done) => (resolve = done));
  return {
    deadline: new Deadline(() => {
      fired++;
      resolve();
    }),
    fired: () => fired,
    next,
  };
};

describe("Deadline", () => {
  // A deadline's timer does not keep the process alive: this does, while the tests wait.
  let alive: NodeJS.Timeout | undefined;
  before(() => {
    alive = setInterval(() => {}, 1000);
  });
  after(() => clearInterval(alive));

  it("expires once, after the last time it was set", async () => {
    const { deadline, fired, next } = expiry();
    const expired = next();
    const started = performance.now();
    deadline.set(30);
    for (let i = 0; i < 5; i++) {
      await sleep(10);
      deadline.set(30);
    }
    const lastSet = performance.now();
    await expired;
    assert.ok(performance.now() - lastSet >= 29, "expired before the deadline last set");
    assert.ok(lastSet - started >= 40, "the sets were spread out");
    await sleep(50);
    assert.equal(fired(), 1);
  });

  it("expires at a deadline moved earlier than the armed timer", { timeout: 10_000 }, async () => {
    const { deadline, next } = expiry();
    const expired = next();
    deadline.set(60_000);
    deadline.set(5);
    // The test's timeout (10 s) ends it if the timer still waits for the first deadline (60 s).
    await expired;
  });

  it("does not expire once stopped or disposed, and can be set again after", async () => {
    const { deadline, fired, next } = expiry();
    deadline.set(5);
    deadline.stop();
    await sleep(30);
    assert.equal(fired(), 0);
    deadline.set(5);
    deadline.dispose();
    await sleep(30);
    assert.equal(fired(), 0);
    const expired = next();
    deadline.set(5);
    await expired;
    assert.equal(fired(), 1);
  });
});
