// SerialWorker (threads/serial-worker.ts): jobs answered in order, one reply per loop turn or several posted ahead,
// and every unanswered job failed when the worker dies.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { SerialWorker } from "../../src/threads/serial-worker.ts";

/** A worker that answers each number with its double, or exits when sent "exit". */
const DOUBLER = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", (n) => { if (n === "exit") process.exit(3); parentPort.postMessage(n * 2); });
`;
const doubler = () => new Worker(DOUBLER, { eval: true });

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Loop turns seen while `work` runs (a setImmediate chain). */
async function turnsDuring<T>(work: Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work;
  running = false;
  return { result, turns };
}

describe("SerialWorker", () => {
  for (const inFlight of [1, 8]) {
    it(`answers every job with its own reply, in order (${inFlight} in flight)`, async () => {
      const worker = new SerialWorker<number>(doubler, inFlight);
      try {
        const inputs = Array.from({ length: 50 }, (_, i) => i);
        assert.deepEqual(
          await Promise.all(inputs.map((n) => worker.run(n))),
          inputs.map((n) => n * 2),
        );
      } finally {
        await worker.close();
      }
    });
  }

  /** Loop turns it takes to take in the replies to 32 jobs the worker had time to answer all at once. */
  async function turnsForBurst(inFlight: number): Promise<number> {
    const worker = new SerialWorker<number>(doubler, inFlight);
    try {
      await worker.run(0); // the thread started
      const jobs = Array.from({ length: 32 }, (_, i) => i);
      const replies = Promise.all(jobs.map((n) => worker.run(n)));
      busyFor(200); // the worker answers every job it was given meanwhile
      const { result, turns } = await turnsDuring(replies);
      assert.deepEqual(
        result,
        jobs.map((n) => n * 2),
      );
      return turns;
    } finally {
      await worker.close();
    }
  }

  it("with one in flight, never has two replies waiting: a large reply is taken in alone", async () => {
    const turns = await turnsForBurst(1);
    assert.ok(turns >= 16, `${turns} turns for 32 jobs`);
  });

  it("with more in flight, posts jobs ahead: replies that are ready are taken in together", async () => {
    const turns = await turnsForBurst(32);
    assert.ok(turns <= 3, `${turns} turns for 32 jobs`);
  });

  it("fails the jobs the worker had and the waiting ones when it dies, then starts a new one", async () => {
    const worker = new SerialWorker<number | string>(doubler, 2);
    try {
      const jobs = [worker.run("exit"), worker.run(1), worker.run(2)];
      const settled = await Promise.allSettled(jobs);
      assert.deepEqual(
        settled.map((outcome) => outcome.status),
        ["rejected", "rejected", "rejected"],
      );
      assert.equal(await worker.run(21), 42);
    } finally {
      await worker.close();
    }
  });
});
