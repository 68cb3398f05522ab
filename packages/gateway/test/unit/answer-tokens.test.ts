import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { MAX_TOKENS_PER_CALL, plausibleTokens } from "../../src/backends/usage.ts";
import { answerTokens } from "../../src/dispatch/answer-tokens.ts";

describe("tokens read from an answer's usage", () => {
  it("reads prompt and completion tokens from a whole answer, nested details in any order", () => {
    const answer = JSON.stringify({
      choices: [{ message: { content: 'a text that mentions "usage": {"prompt_tokens": 999}' } }],
      usage: {
        prompt_tokens_details: { cached_tokens: 3 },
        prompt_tokens: 12,
        completion_tokens: 34,
        total_tokens: 46,
      },
    });
    assert.deepEqual(answerTokens(Buffer.from(answer)), { promptTokens: 12, completionTokens: 34 });
    assert.deepEqual(answerTokens(answer), { promptTokens: 12, completionTokens: 34 });
  });

  it("ignores a usage key inside generated text, usage null, and answers without usage", () => {
    assert.equal(answerTokens(JSON.stringify({ choices: [{ text: '"usage": {"prompt_tokens": 5}' }] })), undefined);
    assert.equal(answerTokens('data: {"choices":[],"usage":null}\n\n'), undefined);
    assert.equal(answerTokens('{"object":"list","data":[]}'), undefined);
    assert.deepEqual(answerTokens('data: {"usage":{"prompt_tokens":7,"total_tokens":7}}\n\n'), {
      promptTokens: 7,
      completionTokens: 0,
    });
  });
});

describe("tokens read from a hostile answer's usage", () => {
  it("bounds counts no backend could use: a 400-digit count is not Infinity in the metrics", () => {
    const huge = "9".repeat(400);
    const tokens = answerTokens(`{"usage":{"prompt_tokens":${huge},"completion_tokens":${huge}}}`);
    assert.deepEqual(tokens, { promptTokens: MAX_TOKENS_PER_CALL, completionTokens: MAX_TOKENS_PER_CALL });
  });
});

/**
 * The reading as it was first written, searching backwards for `"usage"`: answerTokens now finds the key forwards
 * (much faster on JSON), and must find the same one.
 */
function answerTokensBackwards(text: Buffer | string) {
  const key = '"usage"';
  const keyBytes = Buffer.from(key);
  const lastKey = (before?: number) =>
    typeof text === "string" ? text.lastIndexOf(key, before) : text.lastIndexOf(keyBytes, before);
  let at = lastKey();
  while (at > 0 && (typeof text === "string" ? text.charCodeAt(at - 1) : text[at - 1]) === 0x5c) at = lastKey(at - 1);
  if (at < 0) return undefined;
  const end = Math.min(text.length, at + 512);
  const window = typeof text === "string" ? text.slice(at, end) : text.toString("latin1", at, end);
  if (!/^"usage"\s*:\s*\{/.test(window)) return undefined;
  let depth = 0;
  let objectEnd = window.length;
  for (let i = window.indexOf("{"); i >= 0 && i < window.length; i++) {
    if (window[i] === "{") depth++;
    else if (window[i] === "}" && --depth === 0) {
      objectEnd = i + 1;
      break;
    }
  }
  const object = window.slice(0, objectEnd);
  const prompt = /"prompt_tokens"\s*:\s*(\d+)/.exec(object);
  const completion = /"completion_tokens"\s*:\s*(\d+)/.exec(object);
  if (!prompt && !completion) return undefined;
  return {
    promptTokens: plausibleTokens(Number(prompt?.[1] ?? 0)),
    completionTokens: plausibleTokens(Number(completion?.[1] ?? 0)),
  };
}

describe("tokens read forwards", () => {
  // Keys whole, cut or escaped, each followed by a usage object, null or a broken one: the cases the search decides.
  const key = fc.tuple(
    fc.constantFrom("", "\\", "x", '"', "é"),
    fc.constantFrom('"usage"', 'usage"', '"usage', '\\"usage\\"'),
    fc.constantFrom(":", " : ", ""),
    fc.constantFrom("null", '{"prompt_tokens":12}', '{"completion_tokens": 7, "prompt_tokens":3}', "{}", "{"),
    fc.constantFrom("", "}", "\n\n", '"'),
  );
  const text = fc.oneof(
    fc.array(key, { maxLength: 6 }).map((keys) => keys.map((parts) => parts.join("")).join("")),
    fc.string({ maxLength: 60 }),
  );

  it("finds the same usage as the backwards search, in text and in bytes", () => {
    fc.assert(
      fc.property(text, (answer) => {
        assert.deepEqual(answerTokens(answer), answerTokensBackwards(answer));
        const bytes = Buffer.from(answer);
        assert.deepEqual(answerTokens(bytes), answerTokensBackwards(bytes));
      }),
      { numRuns: 3000 },
    );
  });
});
