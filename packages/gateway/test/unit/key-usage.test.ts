import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { EventBus } from "../../src/telemetry/events.ts";
import { KeyUsage } from "../../src/telemetry/key-usage.ts";

/** A completed chat request of `key` with these tokens (the fields KeyUsage reads; the rest as any request has). */
function completed(events: EventBus, key: string, promptTokens = 1, completionTokens = 2): void {
  events.emit({
    type: "request_completed",
    requestId: "r",
    endpoint: "chat",
    requestedModel: "m",
    stream: false,
    priority: "normal",
    status: 200,
    outcome: "ok",
    durationMs: 1,
    attempts: 1,
    key,
    promptTokens,
    completionTokens,
  } as Parameters<EventBus["emit"]>[0]);
}

describe("per-key usage", () => {
  it("keeps the keys in use in rows of their own under a churn of short-lived keys", () => {
    const events = new EventBus();
    const usage = new KeyUsage(events, 3);
    completed(events, "steady");
    for (let job = 0; job < 10; job++) {
      completed(events, `ci-job-${job}`);
      completed(events, "steady");
    }
    const rows = usage.rows();
    assert.deepEqual(
      rows.map((row) => row.key),
      ["steady", "(other keys)", "ci-job-8", "ci-job-9"],
    );
    assert.deepEqual(rows[0], { key: "steady", requests: 11, prompt_tokens: 11, completion_tokens: 22 });
    assert.deepEqual(rows[1], { key: "(other keys)", requests: 8, prompt_tokens: 8, completion_tokens: 16 });
  });

  it("never loses a request or a token, and never holds more rows than its bound plus the shared one", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.record({ key: fc.constantFrom("a", "b", "c", "d", "e", "f", "g"), tokens: fc.nat(100) })),
        (maxRows, requests) => {
          const events = new EventBus();
          const usage = new KeyUsage(events, maxRows);
          for (const { key, tokens } of requests) completed(events, key, tokens, 1);
          const rows = usage.rows();
          assert.ok(rows.length <= maxRows + 1);
          assert.equal(
            rows.reduce((sum, row) => sum + row.requests, 0),
            requests.length,
          );
          assert.equal(
            rows.reduce((sum, row) => sum + row.prompt_tokens, 0),
            requests.reduce((sum, request) => sum + request.tokens, 0),
          );
          const last = requests.at(-1);
          if (last !== undefined)
            assert.ok(
              rows.some((row) => row.key === last.key),
              "the key used last has a row",
            );
        },
      ),
    );
  });
});
