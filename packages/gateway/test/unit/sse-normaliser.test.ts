import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { SseNormaliser, streamErrorEvent } from "../../src/dispatch/sse-normaliser.ts";
import { split } from "./chunked.ts";

function run(chunks: Buffer[]): string {
  const sse = new SseNormaliser();
  let out = "";
  for (const chunk of chunks) out += sse.push(chunk).toString();
  return out + sse.finish();
}

describe("SSE normaliser", () => {
  it("re-frames any chunking of LF or CRLF events into LF events ending with exactly one [DONE]", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }).filter((s) => !/[\r\n]/.test(s)),
          { maxLength: 8 },
        ),
        fc.constantFrom("\n", "\r\n", "\r"),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 12 }),
        (payloads, eol, sendDone, cuts) => {
          const events = payloads.map((p) => `data: ${p}`);
          if (sendDone) events.push("data: [DONE]");
          const upstream = Buffer.from(events.map((e) => `${e}${eol}${eol}`).join(""));
          const out = run(split(upstream, cuts));
          const expected = `${payloads.map((p) => `data: ${p}\n\n`).join("")}data: [DONE]\n\n`;
          assert.equal(out, expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("emits an event only once its blank line arrived", () => {
    const sse = new SseNormaliser();
    assert.equal(sse.push(Buffer.from('data: {"a":')), "");
    assert.equal(sse.push(Buffer.from("1}\r\n")), "");
    assert.equal(sse.push(Buffer.from("\r\n: keep-alive\r\n\r\ndata: 2")), 'data: {"a":1}\n\n: keep-alive\n\n');
    const whole = Buffer.from("data: 3\n\n");
    const fresh = new SseNormaliser();
    assert.equal(fresh.push(whole), whole, "complete LF events pass through as the same bytes");
    assert.equal(sse.finish(), "data: 2\n\ndata: [DONE]\n\n");
  });

  it("does not add a second [DONE]", () => {
    assert.equal(run([Buffer.from("data: x\n\ndata: [DONE]\n")]), "data: x\n\ndata: [DONE]\n\n");
  });

  it("adds [DONE] only when the last event emitted was not one, whichever path the chunks took", () => {
    const bytes = (text: string) => Buffer.from(text);
    // Whole LF events pass through as they are; the check reads only the last chunk's end.
    assert.equal(run([bytes("data: x\n\n"), bytes("data: [DONE]\n\n")]), "data: x\n\ndata: [DONE]\n\n");
    assert.equal(run([bytes("data: [DONE]\n\n"), bytes("data: y\n\n")]), "data: [DONE]\n\ndata: y\n\ndata: [DONE]\n\n");
    assert.equal(run([bytes('data: ["[DONE]"]\n\n')]), 'data: ["[DONE]"]\n\ndata: [DONE]\n\n');
    assert.equal(run([bytes("data:[DONE]\n\n")]), "data:[DONE]\n\n");
    // Re-framed (CRLF, split) events, and a [DONE] left without its blank line at the end.
    assert.equal(run([bytes("data: [DONE]\r\n\r\n")]), "data: [DONE]\n\n");
    assert.equal(run([bytes("data: z\n\ndata: [DO"), bytes("NE]")]), "data: z\n\ndata: [DONE]\n\n");
  });

  it("an interrupted stream ends with an OpenAI-style error event and [DONE]", () => {
    const text = streamErrorEvent("boom");
    assert.ok(text.endsWith("\n\ndata: [DONE]\n\n"));
    const error = JSON.parse(text.split("\n")[0]!.slice(6));
    assert.deepEqual(error, {
      error: { message: "boom", type: "server_error", param: null, code: "stream_interrupted" },
    });
  });
});
