import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { describe, it } from "node:test";
import { RawRequest } from "@switchboard/common";
import fc from "fast-check";
import { readJsonBody, takeWholeJsonBody } from "../../src/http/json-body.ts";
import type { JsonParseWorker } from "../../src/http/parse-worker.ts";
import { ApiError } from "../../src/request/errors.ts";

/** Tight limits, so that generated bodies cross them. */
const LIMITS = { maxDepth: 4, maxValues: 20, maxKeys: 5 };
const BODY_LIMIT = 300;
/** Bodies here are far below the worker's threshold: it is never asked. */
const noWorker = {} as JsonParseWorker;

const rawRequest = (body: Buffer) =>
  new RawRequest(
    "/v1/chat/completions",
    { "content-length": String(body.length), "content-type": "application/json" },
    body,
    { destroyed: false } as Socket,
  ) as unknown as IncomingMessage;

/** What a reader made of a body: its value, or its error's status, type, code and message. */
const outcome = (result: unknown) =>
  result instanceof ApiError
    ? { error: [result.statusCode, result.type, result.code, result.message] }
    : { value: (result as { value: unknown }).value };

const bodies = fc.oneof(
  fc.json({ maxDepth: 6 }).map((text) => Buffer.from(text)),
  fc.string({ unit: "binary", maxLength: 80 }).map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 80 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom("", "[[[[[[1]]]]]]", '{"a":{"b":[', "{}", '"\\"[[[[["').map((text) => Buffer.from(text)),
);

describe("a body the raw ingress read whole", () => {
  it("is taken at once with the stream reader's very result or error, whatever its bytes", async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const whole = takeWholeJsonBody(rawRequest(body), BODY_LIMIT, LIMITS);
        assert.notEqual(whole, undefined, "a small body of a raw request is taken whole");
        const streamed = await readJsonBody(rawRequest(body), BODY_LIMIT, noWorker, { limits: LIMITS }).catch(
          (error: unknown) => error,
        );
        assert.deepEqual(outcome(whole), outcome(streamed));
        if (!(whole instanceof ApiError)) assert.equal(whole?.raw, body);
      }),
      { numRuns: 400 },
    );
  });

  it("is left to the stream reader when the request is not the raw ingress's", () => {
    const request = { headers: {}, body: Buffer.from("{}") } as unknown as IncomingMessage;
    assert.equal(takeWholeJsonBody(request, BODY_LIMIT, LIMITS), undefined);
  });

  it("is left to the stream reader when larger than 64 KiB", () => {
    const large = Buffer.from(JSON.stringify({ text: "x".repeat(70 * 1024) }));
    assert.equal(takeWholeJsonBody(rawRequest(large), 1024 * 1024), undefined);
  });
});
