// Long texts left in the parse worker: the marks say where each was and what is kept of it, putting LongText back
// builds the same shape (own properties, even for "__proto__"), and the byte range the worker finds for the
// top-level "model" value is exactly that value, for any JSON body (last member wins, as in JSON.parse); the
// worker runs these functions from their source text, so they are also checked there.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { bodyWithModel } from "../src/dispatch/rewrite-body.ts";
import { hasLongTexts, putBackLongTexts, takeOutLongTexts, topLevelMemberRange } from "../src/http/long-texts.ts";
import { JsonParseWorker } from "../src/http/parse-worker.ts";
import { countPromptTokens } from "../src/policy/tokens.ts";
import type { ChatBody } from "../src/request/chat.ts";
import { LongText } from "../src/request/long-text.ts";
import { chatRequirements } from "../src/routing/requirements.ts";

const rangeText = (text: string, key = "model") => {
  const bytes = Buffer.from(text);
  const range = topLevelMemberRange(bytes, key);
  return range === undefined ? undefined : bytes.subarray(range[0], range[1]).toString();
};

describe("long texts", () => {
  it("are taken out with their place, length and sample, and put back as LongText", () => {
    const messages = [
      { role: "user", content: "a".repeat(100) },
      { role: "user", content: [{ type: "text", text: "b".repeat(50) }] },
    ];
    // Written as text: in an object literal, __proto__ would set the prototype instead of a key.
    const body = JSON.parse(
      `{"model":"m","messages":${JSON.stringify(messages)},"__proto__":"${"c".repeat(60)}"}`,
    ) as Record<string, unknown>;
    const marks = takeOutLongTexts(body, 50, 10);
    assert.deepEqual(
      marks.map((m) => [m.path, m.length, m.sample]),
      [
        [["messages", 0, "content"], 100, "a".repeat(10)],
        [["messages", 1, "content", 0, "text"], 50, "b".repeat(10)],
        [["__proto__"], 60, "c".repeat(10)],
      ],
    );
    putBackLongTexts(body, marks);
    assert.ok(hasLongTexts(body));
    assert.ok(Object.hasOwn(body, "__proto__"));
    assert.equal(Object.getPrototypeOf(body), Object.prototype);
    assert.deepEqual(chatRequirements(body as ChatBody).estimatedTokens, Math.ceil(150 / 4));
  });

  it("count as many tokens as their length says", async () => {
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(2000);
    const body: ChatBody = { model: "m", messages: [{ role: "user", content: text }] };
    const whole = await countPromptTokens(body);
    const slim: ChatBody = {
      model: "m",
      messages: [{ role: "user", content: new LongText(text.length, text.slice(0, 8192)) }],
    };
    const estimate = await countPromptTokens(slim);
    assert.ok(Math.abs(estimate - whole) / whole < 0.02, `${estimate} vs ${whole}`);
  });

  it("find the top-level model value in any body, as JSON.parse reads it", () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(fc.constant("model"), fc.string({ maxLength: 8 })), value), { maxLength: 6 }),
        fc.oneof(fc.constant(0), fc.constant(2)),
        (members, indent) => {
          // Keys written out by hand so that duplicates stay (JSON.stringify of an object would merge them).
          const pad = indent === 0 ? "" : "\n  ";
          const text = `{${members.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${JSON.stringify(v, null, indent)}`).join(",")}${indent ? "\n" : ""}}`;
          const parsed = JSON.parse(text) as Record<string, unknown>;
          const found = rangeText(text);
          if (!Object.hasOwn(parsed, "model")) assert.equal(found, undefined);
          else assert.deepEqual(JSON.parse(found as string), parsed.model);
        },
      ),
    );
    assert.equal(rangeText('{"\\u006dodel":"escaped","x":{"model":"inner"}}'), '"escaped"');
    assert.equal(rangeText('{"a":"\\"model\\":1","model" : 7 }'), "7");
  });

  it("stay in the worker for slim parses, and the model is spliced into the bytes", async () => {
    const worker = new JsonParseWorker();
    try {
      const content = 'quote " backslash \\ é 𝄞 '.repeat(5000);
      const raw = Buffer.from(JSON.stringify({ messages: [{ role: "user", content }], model: "alias", stream: false }));
      const parsed = await worker.parse(raw, true);
      assert.equal(parsed.marks.length, 1);
      assert.equal(parsed.marks[0]?.length, content.length);
      putBackLongTexts(parsed.value, parsed.marks);
      const body = parsed.value as Record<string, unknown>;
      const forwarded = bodyWithModel(body, raw, "real-model", { modelRange: parsed.modelRange });
      const sent = JSON.parse(forwarded.toString()) as { model: string; messages: { content: string }[] };
      assert.equal(sent.model, "real-model");
      assert.equal(sent.messages[0]?.content, content);
      assert.equal(bodyWithModel(body, raw, "alias", { modelRange: parsed.modelRange }), raw);
      const full = await worker.parse(raw, false);
      assert.deepEqual(full.marks, []);
      assert.equal((full.value as typeof sent).messages[0]?.content, content);
    } finally {
      await worker.close();
    }
  });
});
