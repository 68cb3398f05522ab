// The framing of answers relayed as a backend wrote them: Ollama's NDJSON line by line (LineFramer) with its counts
// read from the last object (OllamaCountsTap), and Anthropic's events without OpenAI's [DONE] — for any chunking.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { OllamaCountsTap } from "../../src/backends/ollama/native-chat.ts";
import type { ResponseSink } from "../../src/backends/upstream-call.ts";
import type { TokenUsage } from "../../src/backends/usage.ts";
import { LineFramer } from "../../src/dispatch/line-framer.ts";
import { SseNormaliser } from "../../src/dispatch/sse-normaliser.ts";
import { split } from "./chunked.ts";

const objects = fc.array(fc.record({ text: fc.string({ unit: "grapheme", maxLength: 20 }), n: fc.nat() }), {
  minLength: 1,
  maxLength: 6,
});

describe("native answers' framing", () => {
  it("LineFramer passes whole lines only, in order, whatever the chunking", () => {
    fc.assert(
      fc.property(objects, fc.array(fc.nat(), { maxLength: 10 }), fc.boolean(), (lines, cuts, lastNewline) => {
        const text = lines.map((line) => JSON.stringify(line)).join("\n") + (lastNewline ? "\n" : "");
        const framer = new LineFramer();
        let out = "";
        for (const chunk of split(Buffer.from(text), cuts)) {
          const framed = framer.push(chunk).toString("utf8");
          assert.ok(framed === "" || framed.endsWith("\n"), "only complete lines");
          out += framed;
        }
        out += framer.finish();
        assert.equal(out, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
      }),
    );
  });

  it("OllamaCountsTap reads the last object's counts, whatever the chunking, and passes every byte", () => {
    fc.assert(
      fc.property(objects, fc.nat(), fc.nat(), fc.array(fc.nat(), { maxLength: 10 }), (lines, prompt, output, cuts) => {
        const last = { done: true, prompt_eval_count: prompt, eval_count: output };
        const text = `${[...lines, last].map((line) => JSON.stringify(line)).join("\n")}\n`;
        const seen: { bytes: Buffer[]; usage: TokenUsage | undefined } = { bytes: [], usage: undefined };
        const sink: ResponseSink = {
          start: () => {},
          data: (chunk) => seen.bytes.push(chunk),
          end: () => {},
          error: () => {},
          usage: (usage) => {
            seen.usage = usage;
          },
        };
        const tap = new OllamaCountsTap(sink);
        tap.start(200, "application/x-ndjson");
        for (const chunk of split(Buffer.from(text), cuts)) tap.data(chunk);
        tap.end();
        assert.equal(Buffer.concat(seen.bytes).toString("utf8"), text);
        assert.deepEqual(seen.usage, {
          inputTokens: prompt,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          outputTokens: output,
        });
      }),
    );
  });

  it("an Anthropic stream ends as the backend ended it: no [DONE] added", () => {
    const events = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    const anthropic = new SseNormaliser(false);
    assert.equal(`${anthropic.push(Buffer.from(events))}${anthropic.finish()}`, events);
    const openai = new SseNormaliser();
    assert.equal(`${openai.push(Buffer.from(events))}${openai.finish()}`, `${events}data: [DONE]\n\n`);
  });
});
