// toUnreachable tells undici's timeouts apart without loading undici (backends/network-errors.ts): by the registered
// symbols undici's own instanceof checks, so that it answers as `instanceof` on undici's classes did, for every one of
// them and for anything else thrown.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { errors } from "undici";
import { toUnreachable, UpstreamUnreachable } from "../../src/backends/network-errors.ts";

const TIMEOUTS = [errors.HeadersTimeoutError, errors.BodyTimeoutError, errors.ConnectTimeoutError];
const isTimeout = (error: unknown) => TIMEOUTS.some((timeout) => error instanceof timeout);

describe("toUnreachable and undici's errors", () => {
  it("reads a timeout from each of undici's error classes as instanceof does", () => {
    const classes = Object.values(errors).filter((value) => typeof value === "function") as (new (
      message: string,
      code: number,
      details: object,
    ) => Error)[];
    assert.ok(classes.length > 10);
    for (const ErrorClass of classes) {
      // The arguments the widest constructors need (the response errors: a status and the response's details).
      const error = new ErrorClass("x", 500, { headers: {}, data: undefined, body: undefined });
      const mapped = toUnreachable(error);
      if (error.name === "AbortError") continue;
      assert.ok(mapped instanceof UpstreamUnreachable, ErrorClass.name);
      assert.equal(mapped.timedOut, isTimeout(error), ErrorClass.name);
    }
    assert.equal((toUnreachable(new errors.HeadersTimeoutError()) as UpstreamUnreachable).timedOut, true);
  });

  it("calls nothing else a timeout, whatever is thrown (an undici code on a plain error included)", () => {
    const codes = fc.constantFrom("UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT", "X");
    const thrown = fc.oneof(
      fc.anything(),
      codes.map((code) => Object.assign(new Error("e"), { code })),
      codes.map((code) => ({ code, name: code, message: "m" })),
    );
    fc.assert(
      fc.property(thrown, (value) => {
        const mapped = toUnreachable(value);
        assert.ok(mapped instanceof UpstreamUnreachable);
        assert.equal(mapped.timedOut, false);
      }),
    );
  });
});
