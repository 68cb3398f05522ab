import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { BodyBuffer } from "../../src/http/body-buffer.ts";
import { JsonParseWorker, type ParsedBody } from "../../src/http/parse-worker.ts";

/** `total` bytes of a recognisable pattern, cut into chunks of the given sizes (the last takes the rest). */
function chunksOf(total: number, sizes: number[]): Buffer[] {
  const whole = Buffer.alloc(total);
  for (let i = 0; i < total; i++) whole[i] = (i * 31 + 7) & 0xff;
  const chunks: Buffer[] = [];
  let offset = 0;
  for (const size of sizes) {
    if (offset >= total) break;
    chunks.push(whole.subarray(offset, Math.min(total, offset + size)));
    offset += size;
  }
  if (offset < total) chunks.push(whole.subarray(offset));
  return chunks;
}

describe("request body buffer", () => {
  it("gives back exactly the bytes pushed, small or large, with or without a declared length", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_200_000 }),
        fc.array(fc.integer({ min: 1, max: 300_000 }), { minLength: 1, maxLength: 20 }),
        fc.boolean(),
        (total, sizes, declared) => {
          const chunks = chunksOf(total, sizes);
          const body = new BodyBuffer(declared ? total : undefined);
          for (const chunk of chunks) body.push(chunk);
          assert.equal(body.length, total);
          assert.ok(body.bytes().equals(Buffer.concat(chunks)));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("keeps a large body in memory the parse worker shares, never above twice what arrived or the declared length", () => {
    const body = new BodyBuffer(600_000);
    for (const chunk of chunksOf(300_000, [65_536])) body.push(chunk);
    const bytes = body.bytes();
    assert.ok(bytes.buffer instanceof SharedArrayBuffer);
    assert.ok(bytes.buffer.byteLength <= 600_000);
    const undeclared = new BodyBuffer(undefined);
    for (const chunk of chunksOf(1_000_000, [65_536])) undeclared.push(chunk);
    assert.ok(undeclared.bytes().buffer.byteLength <= 2_000_000);
  });
});

describe("JSON parse worker", () => {
  it("parses shared and private bodies in order, one at a time, and reports bad JSON as a SyntaxError", async () => {
    const worker = new JsonParseWorker();
    try {
      const shared = new BodyBuffer(undefined);
      const text = JSON.stringify({ model: "m", messages: [{ role: "user", content: "x".repeat(400_000) }] });
      shared.push(Buffer.from(text));
      const results = await Promise.all([
        worker.parse(shared.bytes()),
        worker.parse(Buffer.from('{"a":1}')),
        worker.parse(Buffer.from("{nope")).catch((error: unknown) => error),
        worker.parse(Buffer.from("[2]")),
      ]);
      assert.deepEqual((results[0] as ParsedBody).value, JSON.parse(text));
      assert.deepEqual((results[1] as ParsedBody).value, { a: 1 });
      assert.ok(results[2] instanceof SyntaxError);
      assert.deepEqual((results[3] as ParsedBody).value, [2]);
    } finally {
      await worker.close();
    }
  });
});
