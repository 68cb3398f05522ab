// Supervision by the core, with an in-memory protocol and a fake clock: backoff capped and jittered within bounds,
// channels joined again after every reconnect, each transition logged once, and terminal failures.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import fc from "fast-check";
import { backoffDelay } from "../src/core/backoff.ts";
import { AccountFailure } from "../src/core/connection.ts";
import { settle } from "./fake-clock.ts";
import { type FakeRun, fakeBridge, logsWith } from "./fake-protocol.ts";

const BACKOFF = "ReconnectDelay = 1000\nReconnectMaxDelay = 3000";

let current: FakeRun | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});

function run(sections: Record<string, string>, random?: () => number): FakeRun {
  current = fakeBridge(sections, { random, channels: { a: ["#a", "#a2"] } });
  return current;
}

describe("backoff", () => {
  it("doubles from the base, never exceeds the cap, and jitters within [d/2, d]", () => {
    const policy = { baseMs: 1000, capMs: 8000 };
    assert.deepEqual(
      [0, 1, 2, 3, 4, 10, 100].map((attempt) => backoffDelay(attempt, policy, () => 1)),
      [1000, 2000, 4000, 8000, 8000, 8000, 8000],
    );
    assert.equal(
      backoffDelay(2, policy, () => 0),
      2000,
    );
    fc.assert(
      fc.property(
        fc.nat({ max: 200 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, baseMs, capMs, random) => {
          const delay = backoffDelay(attempt, { baseMs, capMs }, () => random);
          const full = Math.min(capMs, baseMs * 2 ** attempt);
          assert.ok(delay <= capMs, `${delay} > cap ${capMs}`);
          assert.ok(
            delay >= Math.floor(full / 2) && delay <= Math.ceil(full),
            `${delay} outside [${full / 2}, ${full}]`,
          );
        },
      ),
    );
  });
});

describe("supervisor", () => {
  it("connects and joins each channel, then after a disconnect reconnects with capped backoff and rejoins", async () => {
    const r = run({ a: BACKOFF, b: "" });
    await r.start();
    const a = r.connection("a");
    assert.deepEqual(a.calls, ["connect", "join #a", "join #a2"]);
    assert.equal(r.account("a").supervisor.state, "connected");

    a.connects.push(new Error("connection refused"), new Error("connection refused"), new Error("connection refused"));
    a.context.disconnected(new Error("socket closed"));
    a.context.disconnected(new Error("socket closed again")); // a second report of the same drop is ignored
    await settle();
    assert.equal(r.account("a").supervisor.state, "waiting");
    const delays: (number | undefined)[] = [];
    for (let i = 0; i < 4; i++) delays.push(await r.clock.fireNext());
    assert.deepEqual(delays, [1000, 2000, 3000, 3000], "random = 1: exactly base x 2^n, capped at 3000");
    assert.equal(r.account("a").supervisor.state, "connected");
    assert.deepEqual(a.calls, [
      "connect",
      "join #a",
      "join #a2",
      "disconnect",
      "connect",
      "disconnect",
      "connect",
      "disconnect",
      "connect",
      "disconnect",
      "connect",
      "join #a",
      "join #a2",
    ]);
    assert.deepEqual(r.clock.pending, [], "no timer left once connected");
  });

  it("logs each transition once: the drop, the first failing reason, the reconnection with a summary", async () => {
    const r = run({ a: BACKOFF, b: "" });
    await r.start();
    const a = r.connection("a");
    for (let i = 0; i < 5; i++) a.connects.push(new Error("connection refused"));
    a.connects.push(new Error("host unreachable"));
    a.context.disconnected("ping timeout");
    await settle();
    while (r.account("a").supervisor.state !== "connected") await r.clock.fireNext();
    assert.equal(logsWith(r, "fake.a connected").length, 1);
    assert.equal(logsWith(r, "disconnected: ping timeout").length, 1);
    assert.equal(logsWith(r, "reconnect failing: connection refused").length, 1, "identical errors logged once");
    assert.equal(logsWith(r, "reconnect failing: host unreachable").length, 1, "a new reason is worth a line");
    assert.equal(logsWith(r, "reconnect attempt failed").filter((l) => l.level === 20).length, 4, "the rest: debug");
    const reconnected = logsWith(r, "fake.a reconnected");
    assert.equal(reconnected.length, 1);
    assert.equal(reconnected[0]?.["attempts"], 7);
  });

  it("spreads reconnect delays with jitter, within half and all of the backoff", async () => {
    const r = run({ a: "ReconnectDelay = 1000\nReconnectMaxDelay = 60000", b: "" }, () => 0.5);
    await r.start();
    r.connection("a").context.disconnected("gone");
    await settle();
    assert.deepEqual(r.clock.pending, [750]);
  });

  it("a failure on the first connect stops start-up with an error naming the account", async () => {
    const r = run({ a: "", b: "" });
    // The connection exists once the bridge is built; script it before starting.
    r.connection("b").connects.push(new AccountFailure("password refused"));
    await assert.rejects(r.start(), /^Error: \[fake\.b\] password refused$/);
    assert.ok(r.connection("a").calls.includes("disconnect"), "the accounts already up are stopped");
  });

  it("a transient error on the first connect does not stop start-up: the account keeps retrying", async () => {
    const r = run({ a: "", b: "" });
    r.connection("a").connects.push(new Error("connection refused"));
    await r.start();
    assert.equal(r.account("a").supervisor.state, "waiting");
    assert.equal(logsWith(r, "fake.a cannot connect: connection refused; retrying").length, 1);
    await r.clock.fireNext();
    assert.equal(r.account("a").supervisor.state, "connected");
    assert.deepEqual(r.connection("a").calls.slice(-3), ["connect", "join #a", "join #a2"]);
  });

  it("a failed report after connecting is terminal: logged once, disconnected, never retried", async () => {
    const r = run({ a: "", b: "" });
    await r.start();
    const a = r.connection("a");
    a.context.failed(new Error("account banned"));
    a.context.failed(new Error("account banned"));
    a.context.disconnected("socket closed");
    await settle();
    assert.equal(r.account("a").supervisor.state, "failed");
    assert.deepEqual(r.clock.pending, []);
    assert.equal(a.calls.at(-1), "disconnect");
    assert.equal(logsWith(r, "fake.a failed: account banned").length, 1);
  });

  it("a failed report during a reconnect attempt ends it as terminal", async () => {
    const r = run({ a: "", b: "" });
    await r.start();
    const a = r.connection("a");
    a.context.disconnected("socket closed");
    await settle();
    const connect = a.connect.bind(a);
    a.connect = async () => {
      a.context.failed(new Error("SASL authentication failed"));
      await connect();
    };
    await r.clock.fireNext();
    assert.equal(r.account("a").supervisor.state, "failed");
    assert.equal(logsWith(r, "SASL authentication failed").length, 1);
  });

  it("a drop reported while joining makes the attempt a failed one, retried", async () => {
    const r = run({ a: "", b: "" });
    await r.start();
    const a = r.connection("a");
    a.context.disconnected("socket closed");
    await settle();
    let dropOnce = true;
    a.join = async (request) => {
      a.calls.push(`join ${request.channel}`);
      if (dropOnce) {
        dropOnce = false;
        a.context.disconnected("closed by the server during the join");
      }
    };
    await r.clock.fireNext();
    assert.equal(r.account("a").supervisor.state, "waiting");
    assert.equal(logsWith(r, "reconnect failing: closed by the server during the join").length, 1);
    await r.clock.fireNext();
    assert.equal(r.account("a").supervisor.state, "connected");
    assert.deepEqual(a.calls.slice(-3), ["connect", "join #a", "join #a2"]);
  });

  it("stop cancels a pending reconnect", async () => {
    const r = run({ a: "", b: "" });
    await r.start();
    r.connection("a").context.disconnected("socket closed");
    await settle();
    assert.equal(r.clock.pending.length, 1);
    await r.stop();
    assert.deepEqual(r.clock.pending, []);
    assert.equal(r.account("a").supervisor.state, "stopped");
  });
});
