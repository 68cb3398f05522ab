// The outbound queue with a connection that sends batches (Connection.sendBatch, IRC's corked writes): with
// MessageDelay 0 the messages that waited while one was being sent go out together, in order; a failed batch counts
// none as sent and goes again, in order, once the account is back; pacing, a message waiting for an id and one
// with files each keep the one-at-a-time send.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import pino from "pino";
import type { Delivery } from "../src/core/account.ts";
import type { PreparedFiles } from "../src/core/files/file-relay.ts";
import { DEFAULT_QUEUE_POLICY, OutboundQueue } from "../src/core/outbound-queue.ts";
import { Pacer } from "../src/core/pacer.ts";
import { FakeClock, settle } from "./fake-clock.ts";

interface Pending {
  texts: string[];
  resolve(ids: string[]): void;
  reject(error: Error): void;
}

/** A queue whose sends and batches wait until the test settles them; records what went out and how. */
function harness(messageDelay = 0) {
  const clock = new FakeClock();
  const calls: Pending[] = [];
  const state = { up: true };
  const wait = (texts: string[]) => new Promise<string[]>((resolve, reject) => calls.push({ texts, resolve, reject }));
  const queue = new OutboundQueue(
    { ...DEFAULT_QUEUE_POLICY, capacity: 100 },
    {
      channel: "#c",
      logger: pino({ level: "silent" }),
      clock,
      random: () => 0.5,
      pacer: new Pacer(messageDelay, clock),
      send: (delivery) => wait([`single:${delivery.message.text}`]).then((ids) => ids[0] ?? ""),
      sendBatch: (deliveries) => wait(deliveries.map((d) => `batch:${d.message.text}`)),
      isUp: () => state.up,
    },
  );
  const delivery = (text: string): Delivery => ({
    message: { text } as Delivery["message"],
    channel: "#c",
    gateway: "g",
    options: {},
  });
  return { clock, calls, state, queue, delivery };
}

describe("outbound queue batches", () => {
  it("sends what waited behind an in-flight message in one batch, in order, each resolving with its id", async () => {
    const { calls, queue, delivery } = harness();
    const results = ["1", "2", "3", "4"].map((text) => queue.enqueue(delivery(text)));
    assert.deepEqual(
      calls.map((c) => c.texts),
      [["single:1"]],
    );
    calls[0]?.resolve(["id1"]);
    await settle();
    assert.deepEqual(calls[1]?.texts, ["batch:2", "batch:3", "batch:4"]);
    assert.equal(queue.size, 3, "held until the batch is confirmed");
    calls[1]?.resolve(["id2", "id3", "id4"]);
    assert.deepEqual(await Promise.all(results), ["id1", "id2", "id3", "id4"]);
    assert.equal(queue.size, 0);
  });

  it("counts none of a failed batch as sent: all go again, in order, once the account is back", async () => {
    const { calls, state, queue, delivery } = harness();
    const results = ["1", "2", "3"].map((text) => queue.enqueue(delivery(text)));
    calls[0]?.resolve([""]);
    await settle();
    state.up = false;
    calls[1]?.reject(new Error("the connection closed"));
    await settle();
    assert.equal(queue.size, 2, "both held for the reconnect");
    assert.equal(calls.length, 2, "nothing sent while down");
    state.up = true;
    queue.resume();
    await settle();
    assert.deepEqual(calls[2]?.texts, ["batch:2", "batch:3"]);
    calls[2]?.resolve(["", ""]);
    assert.deepEqual(await Promise.all(results), ["", "", ""]);
  });

  it("never batches when paced (MessageDelay > 0): each message waits for its own slot", async () => {
    const { clock, calls, queue, delivery } = harness(100);
    for (const text of ["1", "2", "3"]) queue.enqueue(delivery(text));
    for (let i = 0; i < 3; i++) {
      calls[i]?.resolve([""]);
      await clock.advance(100);
    }
    assert.deepEqual(
      calls.map((c) => c.texts),
      [["single:1"], ["single:2"], ["single:3"]],
    );
  });

  it("ends a batch before a message that waits for an id or has files", async () => {
    const { calls, queue, delivery } = harness();
    let ready: (go: boolean) => void = () => {};
    const withFiles = { ...delivery("files"), files: {} as PreparedFiles };
    queue.enqueue(delivery("1"));
    queue.enqueue(delivery("2"));
    queue.enqueue(delivery("3"));
    queue.enqueue(
      delivery("edit"),
      new Promise<boolean>((resolve) => {
        ready = resolve;
      }),
    );
    queue.enqueue(withFiles);
    queue.enqueue(delivery("4"));
    queue.enqueue(delivery("5"));
    calls[0]?.resolve([""]);
    await settle();
    assert.deepEqual(calls[1]?.texts, ["batch:2", "batch:3"]);
    calls[1]?.resolve(["", ""]);
    await settle();
    ready(true);
    await settle();
    assert.deepEqual(calls[2]?.texts, ["single:edit"]);
    calls[2]?.resolve([""]);
    await settle();
    assert.deepEqual(calls[3]?.texts, ["single:files"]);
    calls[3]?.resolve([""]);
    await settle();
    assert.deepEqual(calls[4]?.texts, ["batch:4", "batch:5"]);
    calls[4]?.resolve(["", ""]);
    await settle();
    assert.equal(queue.size, 0);
  });
});
