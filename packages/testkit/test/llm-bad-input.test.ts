import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { type FakeLlmServer, startFakeOllama, startFakeOpenAI } from "../src/llm/index.ts";
import { waitUntil } from "../src/wait.ts";

const paths = [
  "/v1/chat/completions",
  "/v1/embeddings",
  "/api/chat",
  "/api/generate",
  "/api/embed",
  "/api/embeddings",
  "/api/show",
];

const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom("system", "user", "assistant", "tool"), fc.string(), fc.integer()),
    content: fc.oneof(fc.string(), fc.constant(null), fc.array(fc.record({ type: fc.string(), text: fc.string() }))),
  },
  { requiredKeys: [] },
);

/** Bodies a confused or hostile client might send: broken JSON, wrong types, odd shapes. */
const body = fc.oneof(
  fc.string(),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc
    .record(
      {
        model: fc.oneof(fc.constant("fake-model"), fc.string(), fc.integer(), fc.constant(null)),
        messages: fc.oneof(fc.array(message, { maxLength: 4 }), fc.string(), fc.constant(null)),
        stream: fc.oneof(fc.boolean(), fc.string()),
        input: fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.integer(), fc.array(fc.integer())),
        prompt: fc.oneof(fc.string(), fc.integer()),
        temperature: fc.oneof(fc.double(), fc.string()),
        max_tokens: fc.oneof(fc.integer(), fc.string()),
        tools: fc.oneof(fc.array(fc.jsonValue(), { maxLength: 2 }), fc.string()),
        stream_options: fc.oneof(fc.record({ include_usage: fc.jsonValue() }), fc.string()),
      },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value)),
);

describe("fake servers answer any input without breaking", () => {
  let openai: FakeLlmServer;
  let ollama: FakeLlmServer;
  before(async () => {
    const models = [{ id: "fake-model" }, { id: "embedder", capabilities: ["embedding" as const] }];
    openai = await startFakeOpenAI({ models });
    ollama = await startFakeOllama({ models });
  });
  after(async () => {
    await openai.close();
    await ollama.close();
  });

  it("gives every request a complete HTTP answer", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), body, fc.boolean(), async (path, text, useOllama) => {
        const server = useOllama ? ollama : openai;
        const response = await fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: text,
          signal: AbortSignal.timeout(5_000),
        });
        assert.ok(response.status >= 200 && response.status < 600);
        const answer = await response.text();
        if (response.status >= 400 && response.headers.get("content-type") === "application/json") {
          assert.ok("error" in (JSON.parse(answer) as object), answer);
        }
      }),
      { numRuns: 200 },
    );
    for (const server of [openai, ollama]) {
      assert.equal((await fetch(`${server.url}/v1/models`)).status, 200);
      await waitUntil(() => server.inFlight === 0, { what: "every request to be finished" });
    }
  });
});
