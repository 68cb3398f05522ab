// OpenAI's text completions (POST /v1/completions), the API of code completion, through the gateway with the official
// openai SDK: to the backends that serve it as written (a vLLM-like server, Ollama with a suffix), never to one that
// does not (an anthropic backend), with routing's failover among those that do.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeAnthropic, startFakeOllama, startFakeOpenAI } from "@switchboard/testkit";
import fc from "fast-check";
import OpenAI from "openai";
import { backendToml, Closers, FAILOVER_ROUTING, http, postJson, sseData, startTestGateway } from "../helpers.ts";

describe("OpenAI text completions through the gateway (openai SDK)", () => {
  let vllm: FakeLlmServer;
  let ollama: FakeLlmServer;
  let claude: FakeLlmServer;
  let client: OpenAI;
  let url: string;
  const closers = new Closers();
  const sent = (server: FakeLlmServer) => server.requests.findLast((r) => r.path === "/v1/completions")!;

  before(async () => {
    vllm = await startFakeOpenAI({ models: [{ id: "qwen2.5-coder" }, { id: "starcoder2" }], chunks: 3 });
    ollama = await startFakeOllama({ models: [{ id: "codellama:7b-code", capabilities: ["completion", "insert"] }] });
    claude = await startFakeAnthropic({ models: [{ id: "claude-haiku-4-5" }], apiKey: "k" });
    // vLLM first by priority; a second copy of its models behind it, for failover.
    const standby = await startFakeOpenAI({ models: [{ id: "qwen2.5-coder" }] });
    closers.after(() => standby.close());
    const gateway = await startTestGateway(
      FAILOVER_ROUTING +
        backendToml("vllm", vllm.url, "vllm", "priority = 10") +
        backendToml("standby", standby.url, "llamacpp", "priority = 50") +
        backendToml("box", ollama.url, "ollama") +
        backendToml("claude", claude.url, "anthropic", 'api_key_env = "K"'),
      closers,
      { K: "k" },
    );
    url = gateway.url;
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "client-key", maxRetries: 0 });
  });
  after(async () => {
    await closers.closeAll();
    await vllm.close();
    await ollama.close();
    await claude.close();
  });

  it("a raw prompt goes as written; the answer comes back as the server wrote it", async () => {
    const request = { model: "qwen2.5-coder", prompt: "<|fim_prefix|>def add(a, b):<|fim_middle|>", max_tokens: 32 };
    const { data, response } = await client.completions.create(request).withResponse();
    assert.equal(response.headers.get("x-gateway-backend"), "vllm");
    assert.equal(data.object, "text_completion");
    assert.equal(data.choices[0]?.text, `echo: ${request.prompt}`);
    assert.deepEqual(sent(vllm).body, request);
    assert.ok((data.usage?.prompt_tokens ?? 0) > 0);
  });

  it("streams: text chunks, then [DONE]", async () => {
    const stream = await client.completions.create({ model: "qwen2.5-coder", prompt: "hello", stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? "";
    assert.equal(text, "echo: hello");
    const raw = await postJson(`${url}/v1/completions`, { model: "qwen2.5-coder", prompt: "hi", stream: true });
    assert.equal(sseData(raw.text).at(-1), "[DONE]");
  });

  it("fill-in-the-middle with a suffix: Ollama reads both ends through the model's template", async () => {
    const answer = await client.completions.create({
      model: "codellama:7b-code",
      prompt: "def add(a, b):",
      suffix: "    return c",
    });
    assert.equal(answer.choices[0]?.text, "echo: <PRE> def add(a, b): <SUF>    return c <MID>");
    assert.equal((sent(ollama).body as Record<string, unknown>)["suffix"], "    return c");
  });

  it("fails over among the backends that serve it", async () => {
    vllm.setFault({ kind: "status", status: 500, scope: "inference" });
    try {
      const answer = await postJson(`${url}/v1/completions`, { model: "qwen2.5-coder", prompt: "p" });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers["x-gateway-backend"], "standby");
      assert.equal(answer.json().choices[0].text, "echo: p");
    } finally {
      vllm.setFault({ kind: "none" });
    }
  });

  it("a model no backend serves text completions for: 400 naming why; unknown models 404", async () => {
    const refused = await postJson(`${url}/v1/completions`, { model: "claude-haiku-4-5", prompt: "p" });
    assert.equal(refused.status, 400);
    assert.equal(refused.json().error.code, "untranslatable_request");
    assert.match(refused.json().error.message, /^a text completion \(\/v1\/completions\) can only go to a backend/);
    assert.equal(claude.requests.filter((r) => r.path === "/v1/messages").length, 0);
    const unknown = await postJson(`${url}/v1/completions`, { model: "nope", prompt: "p" });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json().error.code, "model_not_found");
  });

  it("any malformed body is a 4xx in OpenAI's envelope, never sent on", async () => {
    const before = vllm.requests.length;
    const body = fc.oneof(
      fc.anything(),
      fc.record(
        {
          model: fc.oneof(fc.constant("qwen2.5-coder"), fc.anything()),
          prompt: fc.oneof(fc.anything(), fc.array(fc.oneof(fc.string(), fc.integer(), fc.object()))),
          suffix: fc.anything(),
          max_tokens: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.anything()),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const answer = await http(`${url}/v1/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(value) ?? "null",
        });
        assert.ok(answer.status < 500, `${answer.status} for ${JSON.stringify(value)}: ${answer.text}`);
        if (answer.status >= 400) assert.equal(typeof answer.json().error.message, "string");
      }),
      { numRuns: 60 },
    );
    // Only well-formed requests reached the backend.
    for (const request of vllm.requests.slice(before).filter((r) => r.path === "/v1/completions")) {
      assert.equal((request.body as Record<string, unknown>)["model"], "qwen2.5-coder");
    }
  });
});
