import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { describe, it } from "node:test";
import { abortEither } from "../src/abort-either.ts";

describe("abortEither", () => {
  it("aborts when either source does, with that source's reason", () => {
    for (const which of [0, 1] as const) {
      const sources = [new AbortController(), new AbortController()] as const;
      const limit = abortEither(sources[0].signal, sources[1].signal);
      assert.equal(limit.signal.aborted, false);
      sources[which].abort(new Error(`source ${which}`));
      assert.equal(limit.signal.aborted, true);
      assert.equal((limit.signal.reason as Error).message, `source ${which}`);
      limit.release();
    }
  });

  it("starts aborted when a source already is", () => {
    const done = new AbortController();
    done.abort("gone");
    const limit = abortEither(new AbortController().signal, done.signal);
    assert.equal(limit.signal.aborted, true);
    assert.equal(limit.signal.reason, "gone");
  });

  it("leaves nothing on a long-lived source once released", () => {
    const longLived = new AbortController();
    for (let i = 0; i < 1_000; i++) abortEither(AbortSignal.timeout(60_000), longLived.signal).release();
    assert.equal(getEventListeners(longLived.signal, "abort").length, 0);
  });
});
