import assert from "node:assert/strict";
import { type OutgoingHttpHeaders, validateHeaderName, validateHeaderValue } from "node:http";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type HeaderValue, PreparedHeaders } from "../src/http1/prepared-headers.ts";
import { RawResponse } from "../src/http1/raw-response.ts";
import { recordingSocket } from "./recording-socket.ts";

function response(keepAlive: boolean): { res: RawResponse; written: () => string } {
  const { socket, written } = recordingSocket();
  const res = new RawResponse(socket, keepAlive, 5, { finished() {} });
  return { res, written };
}

/** The cached Date line changes with the second: compared apart from its value. */
const withoutDate = (bytes: string) => bytes.replace(/\r\nDate: [^\r]*\r\n/, "\r\nDate: -\r\n");

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const headerName = fc.oneof(
  fc.stringMatching(TOKEN).filter((name) => name.length <= 12),
  fc.constantFrom("x-request-id", "X-Request-Id", "content-type", "Content-Length", "connection", "Date", "x-a"),
);
const visibleValue = fc.stringMatching(/^[\t\x20-\x7e\x80-\xff]{0,20}$/);
const headerValue: fc.Arbitrary<HeaderValue> = fc.oneof(
  visibleValue,
  fc.nat(100000),
  fc.constantFrom("close", "keep-alive", "x, close"),
  fc.array(visibleValue, { minLength: 1, maxLength: 3 }),
);
const header = fc.tuple(headerName, headerValue);
type Step = { set: [string, HeaderValue] } | { prepared: [string, HeaderValue][] };
const step: fc.Arbitrary<Step> = fc.oneof(
  header.map((set) => ({ set })),
  fc.array(header, { maxLength: 6 }).map((prepared) => ({ prepared })),
);

describe("PreparedHeaders on a RawResponse", () => {
  it("writes the bytes the same headers give when set one by one", () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 5 }),
        fc.array(header, { maxLength: 4 }),
        fc.option(fc.array(header, { maxLength: 6 }), { nil: undefined }),
        fc.constantFrom(200, 201, 204, 400, 502),
        fc.boolean(),
        fc.option(fc.stringMatching(/^[a-z]{0,30}$/), { nil: undefined }),
        (steps, written, prepared, status, keepAlive, body) => {
          const plain = response(keepAlive);
          const fast = response(keepAlive);
          for (const item of steps) {
            if ("set" in item) {
              plain.res.setHeader(...item.set);
              fast.res.setHeader(...item.set);
            } else {
              for (const pair of item.prepared) plain.res.setHeader(...pair);
              fast.res.setPreparedHeaders(new PreparedHeaders(item.prepared));
            }
          }
          for (const pair of prepared ?? []) plain.res.setHeader(...pair);
          // writeHead with an object: later names replace earlier ones, as an object literal would.
          const object: OutgoingHttpHeaders = {};
          for (const [name, value] of written) object[name] = value as OutgoingHttpHeaders[string];
          plain.res.writeHead(status, object);
          fast.res.writeHead(status, object, prepared && new PreparedHeaders(prepared));
          plain.res.end(body);
          fast.res.end(body);
          assert.equal(withoutDate(fast.written()), withoutDate(plain.written()));
          assert.equal(fast.res.shouldKeepAlive, plain.res.shouldKeepAlive);
          for (const [name] of [...written, ...(prepared ?? [])]) {
            assert.deepEqual(fast.res.getHeader(name), plain.res.getHeader(name));
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("refuses what node:http refuses, with its errors, before anything is written", () => {
    // Control characters (CR, LF, NUL among them) and characters beyond latin1.
    const hostile = fc.string({
      unit: fc.integer({ min: 0, max: 0x110 }).map((code) => String.fromCharCode(code)),
      maxLength: 10,
    });
    fc.assert(
      fc.property(
        fc.array(header, { maxLength: 3 }),
        fc.tuple(fc.oneof(headerName, hostile), fc.oneof(headerValue, hostile)),
        fc.nat(3),
        (valid, odd, at) => {
          const pairs: [string, HeaderValue][] = [...valid];
          pairs.splice(at % (pairs.length + 1), 0, odd);
          let expected: unknown;
          try {
            for (const [name, value] of pairs) {
              validateHeaderName(name);
              for (const item of Array.isArray(value) ? value : [value]) validateHeaderValue(name, String(item));
            }
          } catch (error) {
            expected = error;
          }
          let prepared: PreparedHeaders | undefined;
          try {
            prepared = new PreparedHeaders(pairs);
            assert.equal(expected, undefined);
          } catch (error) {
            assert.notEqual(expected, undefined);
            assert.equal((error as NodeJS.ErrnoException).code, (expected as NodeJS.ErrnoException).code);
            assert.equal((error as Error).message, (expected as Error).message);
          }
          if (prepared === undefined) return;
          const { res, written } = response(true);
          res.writeHead(200, {}, prepared);
          res.end("ok");
          const head = written().slice(0, written().indexOf("\r\n\r\n") + 2);
          assert.ok(head.includes(prepared.lines));
          // One line per value: nothing in a value split a line or ended the head.
          const values = [...prepared.entries.values()].flatMap(([, value]) =>
            Array.isArray(value) ? value : [value],
          );
          assert.equal(prepared.lines.split("\r\n").length - 1, values.length);
          for (const line of head.split("\r\n")) assert.ok(!/[\r\n]/.test(line));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("keeps a CR or LF in a value from being written", () => {
    for (const value of ["a\r\nX-Evil: 1", "a\nb", "a\rb"]) {
      assert.throws(() => new PreparedHeaders({ "x-note": value }), { code: "ERR_INVALID_CHAR" });
      assert.throws(() => new PreparedHeaders([["x-note", ["ok", value]]]), { code: "ERR_INVALID_CHAR" });
    }
    assert.throws(() => new PreparedHeaders({ "x no": "1" }), { code: "ERR_INVALID_HTTP_TOKEN" });
  });

  it("merges into one object for a response without prepared lines, in node's order", () => {
    const prepared = new PreparedHeaders({ "x-a": "1", "X-B": "2" });
    assert.deepEqual(Object.entries(prepared.withHeaders({ "x-c": "3", "x-b": "4" })), [
      ["x-a", "1"],
      ["x-b", "4"],
      ["x-c", "3"],
    ]);
  });
});
