import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { RequestHeadWriter } from "../../src/backends/http1/request-head.ts";
import type { CallIds } from "../../src/backends/types.ts";

// The head as it is specified: undici's checks on the whole request line and values, a string when all of it is
// ASCII, else its latin1 bytes.
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const INVALID_PATH = /[^\u0021-\u00ff]/;
const NON_ASCII = /[\u0080-\uffff]/;

function expectedHead(basePath: string, fixed: string, path: string, ids: CallIds, length: number): string | Buffer {
  const target = basePath + path;
  if (INVALID_PATH.test(target)) return "error: invalid request path";
  if (INVALID_VALUE.test(ids.requestId)) return "error: invalid x-request-id header";
  let head = `POST ${target} HTTP/1.1\r\n${fixed}x-request-id: ${ids.requestId}\r\n`;
  if (ids.traceparent !== undefined) {
    if (INVALID_VALUE.test(ids.traceparent)) return "error: invalid traceparent header";
    head += `traceparent: ${ids.traceparent}\r\n`;
  }
  head += `content-length: ${length}\r\n\r\n`;
  return NON_ASCII.test(head) ? Buffer.from(head, "latin1") : head;
}

const written = (writer: RequestHeadWriter, path: string, ids: CallIds, length: number) => {
  try {
    return writer.head(path, ids, length);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
};

const text = fc.oneof(
  fc.constantFrom("/v1/chat/completions", "/v1/embeddings", "/api/chat", "req-1", "caf\u00e9", "a b", "\u0100", "\t"),
  fc.string({ unit: "binary", maxLength: 12 }),
);

describe("request heads", () => {
  it("are the specified head for any path, ids and length, asked once or again", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("", "/base", "/b\u00e4se"),
        fc.constantFrom("x-note", ""),
        fc.array(fc.tuple(text, text, fc.option(text, { nil: undefined }), fc.nat()), { minLength: 1, maxLength: 6 }),
        (basePath, note, calls) => {
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (note) headers[note] = "caf\u00e9";
          const fixed = `host: backend:8000\r\n${Object.entries(headers)
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join("")}`;
          const writer = new RequestHeadWriter("backend:8000", basePath, headers);
          for (const [path, requestId, traceparent, length] of [...calls, ...calls]) {
            const ids = { requestId, traceparent };
            assert.deepEqual(written(writer, path, ids, length), expectedHead(basePath, fixed, path, ids, length));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
