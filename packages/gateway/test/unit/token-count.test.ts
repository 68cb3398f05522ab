// BPE counts on the tokenizer thread, with the tokenizer's quadratic worst cases cut (policy/token-count.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { countTokens } from "gpt-tokenizer";
import { countInPieces, RUN_PIECE } from "../../src/policy/token-count.ts";
import { countPromptTokens, countTextTokens, MAX_TOKENISED_CHARS } from "../../src/policy/tokens.ts";
import type { ChatBody } from "../../src/request/chat.ts";
import { LongText } from "../../src/request/long-text.ts";

/** The tokenizer's own count, and how many times it was asked. */
function countingTokenizer() {
  const calls: string[] = [];
  return {
    calls,
    count: (text: string) => {
      calls.push(text);
      return countTokens(text);
    },
  };
}

describe("token counts", () => {
  it("are the tokenizer's own for text whose words and spaces are shorter than a piece", () => {
    const word = fc.string({ unit: fc.constantFrom(..."abcXYZ-,.!?é汉0123"), minLength: 1, maxLength: RUN_PIECE - 1 });
    const gap = fc.constantFrom(" ", "\n", "  ", "\t");
    fc.assert(
      fc.property(fc.array(fc.tuple(word, gap), { maxLength: 60 }), (pairs) => {
        const text = pairs.map(([w, g]) => w + g).join("");
        assert.equal(countInPieces(text, countTokens), countTokens(text));
      }),
    );
  });

  it("cut runs of one kind into pieces: linear work, at most one extra token per piece", () => {
    for (const unit of ["x", " ", "\n", "!", "汉", "ab"]) {
      const text = `start ${unit.repeat(2_000 / unit.length)} end`;
      const tokenizer = countingTokenizer();
      const counted = countInPieces(text, tokenizer.count);
      const longest = Math.max(...tokenizer.calls.map((piece) => piece.length));
      assert.ok(longest <= Math.max(RUN_PIECE, "start ".length + 1), `${JSON.stringify(unit)}: a piece of ${longest}`);
      const exact = countTokens(text);
      const pieces = Math.ceil(2_000 / RUN_PIECE);
      assert.ok(
        counted >= exact - pieces && counted <= exact + pieces,
        `${JSON.stringify(unit)}: ${counted} vs ${exact}`,
      );
    }
  });

  it("count a text on the tokenizer thread, and extrapolate past the tokenised part", async () => {
    assert.equal(await countTextTokens("hello world"), countTokens("hello world"));
    // The compiled dist/ (what the bins run) starts its thread from its own .js module.
    const compiled = (await import(new URL("../../dist/policy/tokens.js", import.meta.url).href)) as {
      countTextTokens: typeof countTextTokens;
    };
    assert.equal(await compiled.countTextTokens("hello compiled world"), countTokens("hello compiled world"));
    const sentence = "The quick brown fox jumps over the lazy dog. ";
    const long = sentence.repeat(Math.ceil((3 * MAX_TOKENISED_CHARS) / sentence.length));
    const estimate = await countTextTokens(long);
    const exact = countTokens(long);
    assert.ok(Math.abs(estimate - exact) / exact < 0.01, `${estimate} vs ${exact}`);
  });

  it("count a prompt's texts, tool calls, tools, messages and images, and a LongText by its length", async () => {
    const body: ChatBody = {
      model: "m",
      messages: [
        { role: "system", content: "be brief" },
        {
          role: "user",
          content: [
            { type: "text", text: "what is" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          ],
        },
        { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] },
      ],
      tools: [{ type: "function", function: { name: "f" } }],
    };
    const texts = `be brief\nwhat is\n${JSON.stringify(body.messages[2]!.tool_calls)}\n${JSON.stringify(body.tools)}\n`;
    assert.equal(await countPromptTokens(body), countInPieces(texts, countTokens) + 3 * 3 + 85);

    // A LongText counts with its length: here 10 copies of its sample's tokens.
    const sample = "x ".repeat(4_096);
    const slim: ChatBody = {
      model: "m",
      messages: [{ role: "user", content: new LongText(sample.length * 10, sample) }],
    };
    const counted = await countPromptTokens(slim);
    const expected = countTokens(`${sample}\n`) * 10 + 3;
    assert.ok(Math.abs(counted - expected) <= 10, `${counted} vs ${expected}`);
  });
});
