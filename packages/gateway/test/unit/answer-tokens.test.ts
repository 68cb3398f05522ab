import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_TOKENS_PER_CALL } from "../../src/backends/usage.ts";
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
