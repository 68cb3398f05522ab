import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { MalformedResponse } from "../../src/backends/http1/malformed-response.ts";
import type { ResponseHead } from "../../src/backends/http1/response-head.ts";
import { ResponseParser } from "../../src/backends/http1/response-parser.ts";
import { malformedResponse, responseCase } from "./responses.ts";

/** Feeds `bytes` to a parser cut at `cuts`; returns what it reported, and the bytes left after the response. */
function parse(bytes: Buffer, cuts: number[], closeAtEnd: boolean) {
  const heads: ResponseHead[] = [];
  const chunks: Buffer[] = [];
  const parser = new ResponseParser({ head: (head) => heads.push(head), data: (chunk) => chunks.push(chunk) });
  let excess = 0;
  let from = 0;
  for (const cut of [...cuts, bytes.length].sort((a, b) => a - b)) {
    if (cut <= from) continue;
    excess += parser.execute(bytes.subarray(from, cut));
    from = cut;
  }
  const done = closeAtEnd ? parser.finish() : parser.done;
  return { heads, body: Buffer.concat(chunks), done, excess };
}

describe("HTTP/1.1 response parser", () => {
  it("reads any valid response, however TCP cuts it, to exactly its status, type and body", () => {
    fc.assert(
      fc.property(responseCase, (response) => {
        const result = parse(response.bytes, response.cuts, response.closeDelimited);
        assert.equal(result.heads.length, 1, "one final head; interim heads are skipped");
        assert.equal(result.heads[0]!.statusCode, response.statusCode);
        assert.equal(result.heads[0]!.contentType, response.contentType);
        assert.deepEqual(result.body, response.body);
        assert.equal(result.done, true);
        assert.equal(result.excess, 0);
        assert.equal(result.heads[0]!.keepAlive, !response.closeDelimited);
      }),
      { numRuns: 500 },
    );
  });

  it("reads each of a connection's responses as a fresh parser would, repeated heads included", () => {
    const reusable = responseCase.filter((response) => !response.closeDelimited);
    fc.assert(
      fc.property(
        fc.array(reusable, { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(5), { maxLength: 8 }),
        (cases, order) => {
          const heads: ResponseHead[] = [];
          const parser = new ResponseParser({ head: (head) => heads.push(head), data: () => {} });
          for (const index of [0, ...order]) {
            const response = cases[index % cases.length]!;
            parser.reset();
            parser.execute(response.bytes);
            const fresh = parse(response.bytes, [], false).heads[0];
            assert.equal(parser.done, true);
            assert.deepEqual(heads.at(-1), fresh);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses malformed responses with MalformedResponse, or waits for more bytes, and never throws anything else", () => {
    fc.assert(
      fc.property(malformedResponse, fc.array(fc.nat(400), { maxLength: 6 }), (text, cuts) => {
        const bytes = Buffer.from(text, "latin1");
        try {
          const result = parse(bytes, cuts, true);
          // Cut short: the close does not end a response that says how long it is.
          assert.equal(result.done, false, "a malformed response is never read as a complete one");
        } catch (error) {
          assert.ok(error instanceof MalformedResponse, String(error));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("reports the bytes after a response's end, which answer no request", () => {
    const result = parse(Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA"), [], false);
    assert.equal(result.body.toString(), "ok");
    assert.equal(result.excess, 5);
  });

  it("takes the Keep-Alive hint and Connection: close from the head", () => {
    const hinted = parse(
      Buffer.from("HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: 0\r\n\r\n"),
      [],
      false,
    );
    assert.equal(hinted.heads[0]!.keepAliveHintMs, 5000);
    const closing = parse(Buffer.from("HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n"), [], false);
    assert.equal(closing.heads[0]!.keepAlive, false);
  });
});
