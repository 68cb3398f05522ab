// SerialWorker (threads/serial-worker.ts): jobs answered in order, at most `inFlight` posted ahead of their replies,
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

  /** The most jobs the worker was given ahead of their replies while it answered a burst of 32. */
  async function mostAhead(inFlight: number): Promise<number> {
    let ahead = 0;
    let most = 0;
    const counted = () => {
      const thread = doubler();
      const post = thread.postMessage.bind(thread);
      thread.postMessage = (message: unknown, transfer?: never) => {
        most = Math.max(most, ++ahead);
        post(message, transfer);
      };
      thread.on("message", () => ahead--);
      return thread;
    };
    const worker = new SerialWorker<number>(counted, inFlight);
    try {
      const jobs = Array.from({ length: 32 }, (_, i) => i);
      assert.deepEqual(
        await Promise.all(jobs.map((n) => worker.run(n))),
        jobs.map((n) => n * 2),
      );
      return most;
    } finally {
      await worker.close();
    }
  }

  it("with one in flight, never has two replies waiting: a large reply is taken in alone", async () => {
    assert.equal(await mostAhead(1), 1);
  });

  it("with more in flight, posts jobs ahead: replies that are ready are taken in together", async () => {
    const most = await mostAhead(32);
    assert.ok(most > 1 && most <= 32, `${most} jobs ahead`);
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
