// The raw ingress reads a head identical to the last one taken by comparing its bytes (request-head.ts): what it
// answers must be what reading the head anew answers, for any sequence of heads, repeated or not.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { readHeadText, readRequestHead } from "../src/http1/request-head.ts";

const PATHS = new Set(["/v1/chat/completions", "/v1/embeddings"]);
const OTHER_PATHS = new Set(["/api/message"]);
const TYPES = new Set(["application/json"]);

/** A few heads that differ in what decides the reading: path, a header, the length, the content type. */
const head = fc
  .record({
    path: fc.constantFrom("/v1/chat/completions", "/v1/embeddings", "/api/message", "/v1/models"),
    type: fc.constantFrom("application/json", "text/plain"),
    length: fc.constantFrom(5, 20, 200),
    extra: fc.constantFrom("", "X-Id: 1\r\n", "x-id: 2\r\n", "Connection: close\r\n", "Bad Name: x\r\n"),
    body: fc.constantFrom("", "{}", '{"model":"m"}'),
  })
  .map(({ path, type, length, extra, body }) =>
    Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n${extra}\r\n${body}`,
      "latin1",
    ),
  );
const readAgainst = fc.record({
  paths: fc.constantFrom(PATHS, OTHER_PATHS),
  maxBody: fc.constantFrom(10, 1000),
});

describe("a head read like the last one taken", () => {
  it("answers what reading it anew answers, with a headers object of its own", () => {
    // A few different reads, made again and again in any order.
    const reads = fc.array(fc.tuple(head, readAgainst), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(reads, fc.array(fc.nat(), { minLength: 1, maxLength: 10 }), (pool, order) => {
        let earlier: object | undefined;
        for (const index of order) {
          const [bytes, { paths, maxBody }] = pool[index % pool.length]!;
          const reading = readRequestHead(bytes, paths, maxBody, TYPES);
          const end = bytes.indexOf("\r\n\r\n");
          assert.deepEqual(reading, readHeadText(bytes, end, paths, maxBody, TYPES));
          if (reading.kind !== "taken") continue;
          assert.notEqual(reading.headers, earlier, "each request gets its own headers object");
          earlier = reading.headers;
          // What a caller does to its headers does not reach the next reading.
          reading.headers["x-changed"] = "yes";
        }
      }),
      { numRuns: 500 },
    );
  });
});
