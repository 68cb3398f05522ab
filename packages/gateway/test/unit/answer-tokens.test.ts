import assert from "node:assert/strict";
import { describe, it } from "node:test";
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
