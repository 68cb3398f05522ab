// The Message codec and timestamps.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { connectedEvent, emptyMessage, encodeMessage, MESSAGE_FIELDS } from "../src/message.ts";
import { formatTimestamp, timestampNow } from "../src/timestamp.ts";
import { KEYS, TIMESTAMP } from "./helpers.ts";

describe("message codec", () => {
  it("always writes the 13 keys in order, whatever order the object was built in", () => {
    assert.deepEqual([...MESSAGE_FIELDS], KEYS);
    const reversed = Object.fromEntries(Object.entries(emptyMessage({ username: "u", id: "i" })).reverse());
    const built = reversed as unknown as ReturnType<typeof emptyMessage>;
    assert.equal(Object.keys(built)[0], "Extra");
    assert.deepEqual(Object.keys(JSON.parse(encodeMessage(built))), KEYS);
  });

  it("round-trips any strings exactly", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }), (text, username, id) => {
        const message = emptyMessage({ text, username, id, timestamp: timestampNow() });
        assert.deepEqual(JSON.parse(encodeMessage(message)), message);
      }),
      { numRuns: 200 },
    );
  });

  it("the api_connected greeting has every string empty, Extra null and a timestamp", () => {
    const greeting = connectedEvent();
    assert.equal(greeting.event, "api_connected");
    assert.match(greeting.timestamp, TIMESTAMP);
    assert.equal(greeting.Extra, null);
  });
});

describe("timestamp", () => {
  it("is RFC 3339 with 9 fraction digits and a numeric offset, never Z", () => {
    const ts = timestampNow();
    assert.match(ts, TIMESTAMP);
    assert.ok(!ts.endsWith("Z"));
    assert.ok(Math.abs(Date.parse(ts) - Date.now()) < 60_000);
  });

  it("keeps the nanoseconds and pads them", () => {
    const ts = formatTimestamp(1_795_000_000_000_000_007n);
    assert.match(ts, /\.000000007[+-]\d\d:\d\d$/);
    assert.equal(Date.parse(ts), 1_795_000_000_000);
  });

  it("is monotonic within a run", () => {
    let previous = "";
    for (let i = 0; i < 1000; i++) {
      const ts = timestampNow();
      if (previous !== "") assert.ok(Date.parse(ts) >= Date.parse(previous));
      previous = ts;
    }
  });
});
