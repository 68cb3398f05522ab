// The Message codec and timestamps.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { connectedEvent, emptyMessage, encodeMessage, MESSAGE_FIELDS, quoteJsonString } from "../src/message.ts";
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

  it("holds what JSON.stringify of the message holds (the state file's rows are written with it)", () => {
    const text = fc.string({ unit: fc.constantFrom("a", '"', "\\", "\n", "\u0000", "\ud83d", "\ude00", "é", " ") });
    const extra = fc.oneof(fc.constant(null), fc.dictionary(fc.string(), fc.array(fc.jsonValue(), { maxLength: 3 })));
    const fields = MESSAGE_FIELDS.filter((field) => field !== "Extra");
    fc.assert(
      fc.property(fc.tuple(...fields.map(() => text)), extra, (values, Extra) => {
        const message = emptyMessage({ ...Object.fromEntries(fields.map((field, i) => [field, values[i]])), Extra });
        assert.deepEqual(JSON.parse(encodeMessage(message)), JSON.parse(JSON.stringify(message)));
      }),
      { numRuns: 500 },
    );
  });

  it("the api_connected greeting has every string empty, Extra null and a timestamp", () => {
    const greeting = connectedEvent();
    assert.equal(greeting.event, "api_connected");
    assert.match(greeting.timestamp, TIMESTAMP);
    assert.equal(greeting.Extra, null);
  });
});

describe("quoteJsonString", () => {
  it("quotes a string as JSON.stringify does", () => {
    const unit = fc.oneof(
      fc.constantFrom('"', "\\", "\u0000", "\u001f", "\u007f", "\ud800", "\udfff", "\u2028", "a", "/"),
      fc.string({ unit: "binary", maxLength: 1 }),
      fc.string({ unit: "grapheme", maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
        assert.equal(quoteJsonString(text), JSON.stringify(text));
      }),
      { numRuns: 3000 },
    );
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
    const ts = formatTimestamp(1_795_000_000, 7);
    assert.match(ts, /\.000000007[+-]\d\d:\d\d$/);
    assert.equal(Date.parse(ts), 1_795_000_000_000);
  });

  it("formats any instant as without its per-second cache, whatever came before", () => {
    const pad = (value: number, width: number) => String(value).padStart(width, "0");
    /** The formatting in full, every field each time. */
    const reference = (second: number, nanos: number) => {
      const ms = second * 1000;
      const offsetMinutes = -new Date(ms).getTimezoneOffset();
      const local = new Date(ms + offsetMinutes * 60_000);
      const abs = Math.abs(offsetMinutes);
      return (
        `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)}` +
        `T${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}` +
        `.${pad(nanos, 9)}${offsetMinutes < 0 ? "-" : "+"}` +
        `${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`
      );
    };
    // Instants near each other (the same second, the next one, a minute boundary) as well as far apart, in
    // nanoseconds since the epoch (BigInt: beyond a double's exact integers), split as formatTimestamp takes them.
    const second = fc.bigInt({ min: 0n, max: 4_102_444_800n });
    const instant = fc.tuple(second, fc.bigInt({ min: 0n, max: 999_999_999n })).map(([s, n]) => s * 1_000_000_000n + n);
    const nearby = fc.tuple(
      instant,
      fc.array(fc.bigInt({ min: -2_000_000_000n, max: 2_000_000_000n }), { maxLength: 8 }),
    );
    fc.assert(
      fc.property(nearby, ([start, steps]) => {
        let ns = start;
        for (const step of [0n, ...steps]) {
          ns = ns + step < 0n ? ns : ns + step;
          const [s, n] = [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
          assert.equal(formatTimestamp(s, n), reference(s, n));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("follows the wall clock to within its 50 ms re-anchoring bound", () => {
    for (let i = 0; i < 200; i++) {
      const before = Date.now();
      const ms = Date.parse(timestampNow());
      const after = Date.now();
      assert.ok(ms >= before - 51 && ms <= after + 51, `${ms} outside [${before}, ${after}]`);
    }
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
