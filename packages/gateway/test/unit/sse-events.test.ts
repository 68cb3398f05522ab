import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type SseEvent, SseEventParser } from "../../src/backends/sse-events.ts";

/** Feeds `bytes` split at `cuts` and collects every event, as a translating backend sees them. */
function parse(bytes: Buffer, cuts: number[]): SseEvent[] {
  const parser = new SseEventParser();
  const events: SseEvent[] = [];
  let start = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    events.push(...parser.push(bytes.subarray(start, cut)));
    start = cut;
  }
  events.push(...parser.push(bytes.subarray(start)), ...parser.finish());
  return events;
}

describe("provider SSE parsing (translated backends)", () => {
  it("yields the same events however the bytes are split, with LF, CRLF or CR line endings", () => {
    const event = fc.record({
      event: fc.constantFrom("", "message_start", "content_block_delta", "ping"),
      data: fc.string({ unit: "grapheme", maxLength: 40 }).map((text) => JSON.stringify({ text })),
    });
    fc.assert(
      fc.property(
        fc.array(event, { minLength: 1, maxLength: 8 }),
        fc.constantFrom("\n", "\r\n", "\r"),
        fc.array(fc.nat(), { maxLength: 12 }),
        (events, eol, rawCuts) => {
          const text = events
            .map((e) => `${e.event ? `event: ${e.event}${eol}` : ""}data: ${e.data}${eol}${eol}`)
            .join(`: comment${eol}${eol}`);
          const bytes = Buffer.from(text);
          const cuts = rawCuts.map((cut) => cut % (bytes.length + 1));
          assert.deepEqual(
            parse(bytes, cuts),
            events.map((e) => ({ event: e.event, data: e.data })),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("joins multi-line data and keeps an unterminated last event", () => {
    const bytes = Buffer.from("data: a\ndata: b\n\ndata: tail");
    assert.deepEqual(parse(bytes, [3]), [
      { event: "", data: "a\nb" },
      { event: "", data: "tail" },
    ]);
  });
});
