// The core's outbound queues, with an in-memory protocol and a fake clock: order, pacing, the bound and its drop
// count, holding while disconnected, rate-limit waits, transient and permanent send errors, and edits that wait for
// the original's id. Messages enter as a real account would inject them (fake.b) and leave through fake.a.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Delivery } from "../src/core/account.ts";
import { PermanentSendError, RetryAfter } from "../src/core/connection.ts";
import { settle } from "./fake-clock.ts";
import { type FakeRun, fakeBridge, logsWith } from "./fake-protocol.ts";

let current: FakeRun | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

async function started(destination: string): Promise<FakeRun> {
  current = fakeBridge({ a: destination, b: "" });
  await current.start();
  return current;
}

function burst(r: FakeRun, ...texts: string[]): void {
  for (const text of texts) r.receive("b", text);
}

/** Takes fake.a down (as its protocol would report) with reconnects failing until `reconnect()`. */
async function takeDown(r: FakeRun): Promise<{ reconnect(): Promise<void> }> {
  const a = r.connection("a");
  for (let i = 0; i < 1000; i++) a.connects.push(new Error("refused"));
  a.context.disconnected("socket closed");
  await settle();
  return {
    async reconnect() {
      a.connects.length = 0;
      while (r.account("a").supervisor.state !== "connected") await r.clock.fireNext();
      await settle();
    },
  };
}

describe("outbound queue", () => {
  it("sends at once, in order, when connected and not paced", async () => {
    const r = await started("");
    burst(r, "1", "2", "3");
    assert.deepEqual(r.connection("a").texts, ["1", "2", "3"], "synchronously: no timer involved");
  });

  it("paces sends by MessageDelay, keeping order", async () => {
    const r = await started("MessageDelay = 100");
    burst(r, "1", "2", "3");
    const a = r.connection("a");
    assert.deepEqual(a.texts, ["1"]);
    await r.clock.advance(99);
    assert.deepEqual(a.texts, ["1"]);
    await r.clock.advance(1);
    assert.deepEqual(a.texts, ["1", "2"]);
    await r.clock.advance(100);
    assert.deepEqual(a.texts, ["1", "2", "3"]);
  });

  it("paces per account, across its channels", async () => {
    current = fakeBridge({ a: "MessageDelay = 100", b: "" }, { channels: { a: ["#x", "#y"] } });
    await current.start();
    burst(current, "1", "2");
    const a = current.connection("a");
    assert.deepEqual(
      a.sent.map((d) => `${d.message.text}${d.channel}`),
      ["1#x"],
    );
    await current.clock.advance(300);
    assert.deepEqual(
      a.sent.map((d) => `${d.message.text}${d.channel}`),
      ["1#x", "1#y", "2#x", "2#y"],
    );
  });

  it("gives each part of a multi-part send its own MessageDelay slot through context.pace()", async () => {
    const r = await started("MessageDelay = 100");
    const a = r.connection("a");
    const parts: string[] = [];
    // As the IRC account sends a two-line message: the queue paces the first line, pace() the second.
    a.onSend = async (delivery) => {
      parts.push(`${delivery.message.text}.1@${r.clock.now()}`);
      await a.context.pace();
      parts.push(`${delivery.message.text}.2@${r.clock.now()}`);
      return a.accept(delivery);
    };
    const start = r.clock.now();
    burst(r, "x", "y");
    await r.clock.advance(400);
    assert.deepEqual(parts, [`x.1@${start}`, `x.2@${start + 100}`, `y.1@${start + 200}`, `y.2@${start + 300}`]);
  });

  it("holds messages while disconnected and delivers them in order after the reconnect", async () => {
    const r = await started("");
    const down = await takeDown(r);
    burst(r, "1", "2", "3");
    await r.clock.advance(5_000);
    assert.deepEqual(r.connection("a").texts, []);
    assert.equal(r.account("a").queued, 3);
    await down.reconnect();
    assert.deepEqual(r.connection("a").texts, ["1", "2", "3"]);
  });

  it("is bounded by MessageQueue: drops beyond it, logs once per burst with the count", async () => {
    const r = await started("MessageQueue = 3");
    const down = await takeDown(r);
    burst(r, "1", "2", "3", "4", "5", "6");
    assert.equal(r.account("a").queued, 3);
    assert.equal(logsWith(r, "is full (3 messages)").length, 1, "one line for the whole burst");
    await down.reconnect();
    assert.deepEqual(r.connection("a").texts, ["1", "2", "3"], "nothing lost up to the bound");
    const summary = logsWith(r, "3 message(s) dropped while it was full");
    assert.equal(summary.length, 1);
    assert.equal(summary[0]?.["droppedTotal"], 3);
  });

  it("honours a rate-limit wait, then sends the same message and the rest in order", async () => {
    const r = await started("");
    const a = r.connection("a");
    let limited = false;
    a.onSend = (delivery: Delivery) => {
      if (!limited) {
        limited = true;
        throw new RetryAfter(500);
      }
      return a.accept(delivery);
    };
    burst(r, "1", "2", "3");
    await r.clock.advance(499);
    assert.deepEqual(a.texts, []);
    await r.clock.advance(1);
    assert.deepEqual(a.texts, ["1", "2", "3"]);
  });

  it("retries a transient send error in order, drops after the retries or on a permanent error, with a log line", async () => {
    const r = await started("");
    const a = r.connection("a");
    const failures = new Map([
      ["1", 2],
      ["2", 99],
    ]);
    a.onSend = (delivery: Delivery) => {
      const text = delivery.message.text;
      const left = failures.get(text) ?? 0;
      if (left > 0) {
        failures.set(text, left - 1);
        return Promise.reject(new Error("timeout writing"));
      }
      if (text === "3") throw new PermanentSendError("message too long");
      return a.accept(delivery);
    };
    burst(r, "1", "2", "3", "4");
    while (r.account("a").queued > 0) await r.clock.fireNext();
    assert.deepEqual(a.texts, ["1", "4"]);
    assert.equal(logsWith(r, "dropped: timeout writing").length, 1);
    assert.equal(logsWith(r, "dropped: timeout writing")[0]?.["attempts"], 4, "the send and 3 retries");
    assert.equal(logsWith(r, "dropped: message too long").length, 1);
  });

  it("an edit that arrives before the original's id is known waits for it, then edits that copy", async () => {
    const r = await started("");
    const a = r.connection("a");
    let release: (id: string) => void = () => {};
    a.onSend = (delivery: Delivery) => {
      a.sent.push(delivery);
      if (delivery.message.id !== "") return "";
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    };
    r.receive("b", "original", { id: "m1" });
    r.receive("b", "edited", { id: "m1" });
    r.receive("b", "", { id: "m1", event: "msg_delete" });
    await settle();
    assert.deepEqual(
      a.sent.map((d) => d.message.text),
      ["original"],
      "the edit waits",
    );
    release("remote-7");
    await settle();
    assert.deepEqual(
      a.sent.map((d) => [d.message.text, d.message.event, d.message.id]),
      [
        ["original", "", ""],
        ["edited", "", "remote-7"],
        ["", "msg_delete", "remote-7"],
      ],
    );
  });

  it("a delete whose original got no id is skipped rather than sent", async () => {
    const r = await started("");
    const a = r.connection("a");
    let release: (id: string) => void = () => {};
    a.onSend = (delivery: Delivery) => {
      a.sent.push(delivery);
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    };
    r.receive("b", "original", { id: "m1" });
    r.receive("b", "", { id: "m1", event: "msg_delete" });
    release("");
    await settle();
    assert.deepEqual(
      a.sent.map((d) => d.message.event),
      [""],
    );
    assert.equal(r.account("a").queued, 0);
  });
});

describe("outbound queues at a stop", () => {
  it("drain() resolves once a paced queue has sent everything; what arrives meanwhile is not routed", async () => {
    const r = await started("MessageDelay = 100");
    burst(r, "1", "2", "3");
    r.bridge.stopAccepting(5);
    let drained = false;
    const drain = r.bridge.drain().then(() => {
      drained = true;
    });
    r.receive("b", "late");
    await r.clock.advance(100);
    assert.equal(drained, false, "one message is still queued");
    await r.clock.advance(100);
    await drain;
    assert.deepEqual(r.connection("a").texts, ["1", "2", "3"]);
    await r.stop();
    assert.equal(r.bridge.undelivered, 0);
    assert.equal(logsWith(r, "1 message(s) received while stopping were not relayed").length, 1);
  });

  it("stop() drops what a destination that is down still holds, counted per destination", async () => {
    const r = await started("");
    await takeDown(r);
    burst(r, "1", "2", "3");
    await r.stop();
    assert.equal(r.bridge.undelivered, 3);
    const lines = logsWith(r, "fake.a #a: 3 queued message(s) not delivered");
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.["channel"], "#a");
  });

  it("cut() empties the queues at once and ends a drain still waiting", async () => {
    const r = await started("MessageDelay = 100");
    burst(r, "1", "2", "3");
    r.bridge.stopAccepting(5);
    const drain = r.bridge.drain();
    assert.deepEqual(r.bridge.busyAccounts(), ["fake.a"]);
    r.bridge.cut();
    await drain;
    assert.equal(r.bridge.undelivered, 2);
    assert.deepEqual(r.bridge.busyAccounts(), []);
    assert.deepEqual(r.connection("a").texts, ["1"]);
  });
});
