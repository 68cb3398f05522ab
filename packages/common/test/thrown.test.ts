// Words for whatever a library throws: describing a failure must never throw in turn (a CI run found
// `{ toString: null }` breaking `String(error)` in the gateway's network errors).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { asError, thrownMessage } from "../src/thrown.ts";

/** Values whose conversion to text throws, each in its own way. */
const HOSTILE: unknown[] = [
  { toString: null },
  Object.create(null),
  {
    toString() {
      throw new Error("no");
    },
  },
  {
    [Symbol.toPrimitive]() {
      throw new Error("no");
    },
    get [Symbol.toStringTag]() {
      throw new Error("no");
    },
  },
  (() => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    return proxy;
  })(),
  Object.assign(new Error("kept"), { message: { toString: null } }),
];

describe("thrownMessage and asError", () => {
  it("describe anything thrown without throwing", () => {
    // fast-check cannot hold a revoked proxy itself: the hostile values are checked one by one below.
    const thrown = fc.oneof(
      fc.anything(),
      fc.string().map((text) => new Error(text)),
      fc.anything().map((message) => Object.assign(new Error("e"), { message })),
    );
    fc.assert(
      fc.property(thrown, (value) => {
        assert.equal(typeof thrownMessage(value), "string");
        const error = asError(value);
        assert.ok(error instanceof Error);
        if (value instanceof Error) assert.equal(error, value);
      }),
    );
    for (const value of HOSTILE) {
      assert.equal(typeof thrownMessage(value), "string");
      assert.ok(asError(value) instanceof Error);
    }
  });

  it("give an Error's message, a string as it is, and other values as text", () => {
    assert.equal(thrownMessage(new TypeError("bad")), "bad");
    assert.equal(thrownMessage("plain"), "plain");
    assert.equal(thrownMessage(42), "42");
    assert.equal(thrownMessage(Symbol("s")), "Symbol(s)");
    assert.equal(thrownMessage(Object.create(null)), "[object Object]");
    assert.equal(asError("plain").message, "plain");
  });
});
