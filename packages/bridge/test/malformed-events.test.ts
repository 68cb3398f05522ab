// The skipped-event log line: one per minute per account whatever the flood, counting the quiet ones, naming the
// event, and never throwing on an event it cannot print.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { pino } from "pino";
import { excerpt, MalformedEvents } from "../src/accounts/malformed-events.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino(sink).child({ account: "test.acc" }) };
}

describe("skipped malformed events", () => {
  it("logs one line per minute, then says how many were skipped quietly", () => {
    const { lines, logger } = capture();
    let now = 0;
    const skipped = new MalformedEvents(logger, () => now);
    for (let n = 0; n < 1000; n++) skipped.skip("a test event", { n }, "bad shape");
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.account, "test.acc");
    assert.equal(lines[0]?.event, '{"n":0}');
    assert.match(String(lines[0]?.msg), /skipped a test event the bridge cannot read: bad shape$/);
    now = 60_000;
    skipped.skip("a test event", { n: 1000 }, new Error("still bad"));
    assert.equal(lines.length, 2);
    assert.match(String(lines[1]?.msg), /still bad \(and 999 more since the last such line\)$/);
    assert.equal(skipped.skipped, 1001);
  });

  it("guards a handler: a throw is a skipped event, not an escape", async () => {
    const { lines, logger } = capture();
    const skipped = new MalformedEvents(logger);
    skipped.guard("an event", null, () => {
      throw new TypeError("Cannot read properties of null");
    });
    await skipped.guardAsync("an event", null, async () => {
      throw new Error("later");
    });
    assert.equal(skipped.skipped, 2);
    assert.equal(lines.length, 1);
  });

  it("prints any event: cycles, BigInts, long texts, objects with their own text", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.equal(excerpt(cyclic), "[object Object]");
    assert.equal(excerpt(10n), "[object BigInt]");
    assert.equal(excerpt(undefined), "undefined");
    assert.equal(excerpt("x".repeat(1000)).length, 301);
    assert.equal(excerpt({ toString: () => "<message/>" }), "<message/>");
  });
});
