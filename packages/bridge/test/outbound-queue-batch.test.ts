// The outbound queue with a connection that sends batches (Connection.sendBatch, IRC's corked writes): with
// MessageDelay 0 the messages queued in one moment go out together, in order, and so do those that waited while a
// batch was being sent; a lone message goes alone; a failed batch counts none as sent and goes again, in order, once
// the account is back; pacing, a message waiting for an id and one with files each keep the one-at-a-time send.
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
  it("sends the messages of one moment in one batch, in order, each resolving with its id", async () => {
    const { calls, queue, delivery } = harness();
    const results = ["1", "2", "3"].map((text) => queue.enqueue(delivery(text)));
    assert.equal(calls.length, 0, "nothing goes before the moment's microtasks are done");
    await Promise.resolve();
    assert.deepEqual(
      calls.map((c) => c.texts),
      [["batch:1", "batch:2", "batch:3"]],
    );
    assert.equal(queue.size, 3, "held until the batch is confirmed");
    calls[0]?.resolve(["id1", "id2", "id3"]);
    assert.deepEqual(await Promise.all(results), ["id1", "id2", "id3"]);
    assert.equal(queue.size, 0);
  });

  it("sends what waited behind an in-flight batch in the next one, and a lone message alone", async () => {
    const { calls, queue, delivery } = harness();
    const first = ["1", "2"].map((text) => queue.enqueue(delivery(text)));
    await settle();
    const second = ["3", "4", "5"].map((text) => queue.enqueue(delivery(text)));
    await settle();
    assert.equal(calls.length, 1, "one batch in flight at a time");
    calls[0]?.resolve(["id1", "id2"]);
    await settle();
    assert.deepEqual(calls[1]?.texts, ["batch:3", "batch:4", "batch:5"]);
    calls[1]?.resolve(["id3", "id4", "id5"]);
    assert.deepEqual(await Promise.all([...first, ...second]), ["id1", "id2", "id3", "id4", "id5"]);
    const lone = queue.enqueue(delivery("6"));
    await settle();
    assert.deepEqual(calls[2]?.texts, ["single:6"]);
    calls[2]?.resolve(["id6"]);
    assert.equal(await lone, "id6");
    assert.equal(queue.size, 0);
  });

  it("counts none of a failed batch as sent: all go again, in order, once the account is back", async () => {
    const { calls, state, queue, delivery } = harness();
    const results = ["1", "2", "3"].map((text) => queue.enqueue(delivery(text)));
    await settle();
    state.up = false;
    calls[0]?.reject(new Error("the connection closed"));
    await settle();
    assert.equal(queue.size, 3, "all held for the reconnect");
    assert.equal(calls.length, 1, "nothing sent while down");
    state.up = true;
    queue.resume();
    await settle();
    assert.deepEqual(calls[1]?.texts, ["batch:1", "batch:2", "batch:3"]);
    calls[1]?.resolve(["", "", ""]);
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
    await settle();
    assert.deepEqual(calls[0]?.texts, ["batch:1", "batch:2", "batch:3"]);
    calls[0]?.resolve(["", "", ""]);
    await settle();
    assert.equal(calls.length, 1, "the edit waits for its original's id");
    ready(true);
    await settle();
    assert.deepEqual(calls[1]?.texts, ["single:edit"]);
    calls[1]?.resolve([""]);
    await settle();
    assert.deepEqual(calls[2]?.texts, ["single:files"]);
    calls[2]?.resolve([""]);
    await settle();
    assert.deepEqual(calls[3]?.texts, ["batch:4", "batch:5"]);
    calls[3]?.resolve(["", ""]);
    await settle();
    assert.equal(queue.size, 0);
  });
});
