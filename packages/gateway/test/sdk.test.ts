import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOllama, startFakeOpenAI } from "@switchboard/testkit";
import OpenAI from "openai";
import { backendToml, Closers, startTestGateway } from "./helpers.ts";

describe("the official openai SDK through the gateway", () => {
  let vllm: FakeLlmServer;
  let ollama: FakeLlmServer;
  let client: OpenAI;
  const closers = new Closers();

  before(async () => {
    vllm = await startFakeOpenAI({
      models: [{ id: "llama3", contextLength: 8192, capabilities: ["completion", "tools", "vision", "json"] }],
      chunks: 4,
    });
    ollama = await startFakeOllama({
      models: [{ id: "qwen2.5:7b" }, { id: "nomic-embed-text", capabilities: ["embedding"], embeddingDimensions: 8 }],
    });
    const gateway = await startTestGateway(
      backendToml("gpu-box", vllm.url, "vllm") +
        backendToml("local-ollama", ollama.url, "ollama") +
        '[routing.aliases]\n"gpt-4o" = "llama3"\n',
      closers,
    );
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "client-secret", maxRetries: 0 });
  });
  after(async () => {
    await closers.closeAll();
    await vllm.close();
    await ollama.close();
  });

  it("chat completion: the backend's body, routing headers, alias resolved upstream", async () => {
    const { data, response } = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "ping" }], temperature: 0.2, seed: 7 })
      .withResponse();
    assert.equal(data.object, "chat.completion");
    assert.equal(data.choices[0]?.message.content, "echo: ping");
    assert.equal(response.headers.get("x-gateway-backend"), "gpu-box");
    assert.equal(response.headers.get("x-gateway-backend-type"), "local");
    assert.equal(response.headers.get("x-gateway-route-reason"), "capability-match");
    assert.equal(response.headers.get("x-gateway-privacy-zone"), "restricted");
    assert.equal(response.headers.get("x-gateway-cost-estimated"), null);
    assert.match(response.headers.get("x-request-id") ?? "", /^[\w-]{8,}$/);
    const sent = vllm.requests.findLast((r) => r.path === "/v1/chat/completions");
    const body = sent?.body as Record<string, unknown>;
    assert.equal(body["model"], "llama3");
    assert.equal(body["seed"], 7);
    assert.equal(body["temperature"], 0.2);
    assert.equal(sent?.headers["authorization"], undefined, "the client's key never goes upstream");
  });

  it("streamed chat: every chunk relayed, then the stream ends", async () => {
    const stream = await client.chat.completions.create({
      model: "qwen2.5:7b",
      messages: [{ role: "user", content: "stream me" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null | undefined;
    let usage = false;
    for await (const chunk of stream) {
      assert.equal(chunk.object, "chat.completion.chunk");
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = true;
    }
    assert.equal(text, "echo: stream me");
    assert.equal(finish, "stop");
    assert.ok(usage, "the usage chunk is relayed");
    const sent = ollama.requests.findLast((r) => r.path === "/v1/chat/completions")?.body as Record<string, unknown>;
    assert.deepEqual(sent["stream_options"], { include_usage: true });
  });

  it("tool calls round trip: tool_calls and tool_call_id reach the backend untouched", async () => {
    const tools = [
      {
        type: "function" as const,
        function: { name: "search", parameters: { type: "object", properties: { query: { type: "string" } } } },
      },
    ];
    const first = await client.chat.completions.create({
      model: "llama3",
      messages: [{ role: "user", content: "weather in Paris" }],
      tools,
      tool_choice: "auto",
    });
    const call = first.choices[0]?.message.tool_calls?.[0];
    assert.ok(call && call.type === "function", "the backend answered with a tool call");
    assert.equal(call.function.name, "search");
    assert.deepEqual(JSON.parse(call.function.arguments), { query: "weather in Paris" });
    const second = await client.chat.completions.create({
      model: "llama3",
      messages: [
        { role: "user", content: "weather in Paris" },
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: call.id, content: "sunny" },
      ],
      tools,
    });
    assert.equal(second.choices[0]?.message.content, "tool result: sunny");
    const sent = vllm.requests.findLast((r) => r.path === "/v1/chat/completions")?.body as {
      messages: Record<string, unknown>[];
      tool_choice?: unknown;
    };
    assert.deepEqual(sent.messages[1]?.["tool_calls"], [call]);
    assert.equal(sent.messages[2]?.["tool_call_id"], call.id);
  });

  it("streamed tool calls arrive as deltas", async () => {
    const stream = await client.chat.completions.create({
      model: "llama3",
      messages: [{ role: "user", content: "look it up" }],
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" } } }],
      stream: true,
    });
    let name = "";
    let args = "";
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += call.function?.name ?? "";
        args += call.function?.arguments ?? "";
      }
    }
    assert.equal(name, "lookup");
    assert.deepEqual(JSON.parse(args), { query: "look it up" });
  });

  it("embeddings through Ollama's /api/embed, single and batch, float and base64", async () => {
    const single = await client.embeddings.create({
      model: "nomic-embed-text",
      input: "hello",
      encoding_format: "float",
    });
    assert.equal(single.object, "list");
    assert.equal(single.data.length, 1);
    assert.equal(single.data[0]?.embedding.length, 8);
    const batch = await client.embeddings.create({ model: "nomic-embed-text", input: ["a", "b", "c"] });
    assert.deepEqual(
      batch.data.map((d) => d.index),
      [0, 1, 2],
    );
    assert.equal(batch.data[2]?.embedding.length, 8, "the SDK decoded base64 vectors");
    assert.ok(ollama.requests.some((r) => r.path === "/api/embed"));
    assert.ok(batch.usage.prompt_tokens > 0);
  });

  it("models.list: one entry per model per healthy backend, owned_by = backend name", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    const ids = models.map((m) => `${m.id}@${m.owned_by}`).sort();
    assert.deepEqual(ids, ["llama3@gpu-box", "nomic-embed-text@local-ollama", "qwen2.5:7b@local-ollama"]);
    for (const model of models) {
      assert.equal(model.object, "model");
      assert.equal(typeof model.created, "number");
    }
  });

  it("models.retrieve: one model, including ids with a colon; unknown → NotFoundError", async () => {
    const model = await client.models.retrieve("qwen2.5:7b");
    assert.deepEqual([model.id, model.object, model.owned_by], ["qwen2.5:7b", "model", "local-ollama"]);
    await assert.rejects(client.models.retrieve("no-such-model"), OpenAI.NotFoundError);
  });

  it("an unknown model is the SDK's NotFoundError with model_not_found", async () => {
    await assert.rejects(
      client.chat.completions.create({ model: "gpt-5-ultra", messages: [{ role: "user", content: "x" }] }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.NotFoundError);
        assert.equal(error.code, "model_not_found");
        assert.match(error.message, /Available: llama3, nomic-embed-text, qwen2\.5:7b/);
        return true;
      },
    );
  });
});

describe("an openai-type (cloud) backend", () => {
  it("sends the configured key, never the client's, and reports cloud type and cost", async () => {
    const cloud = await startFakeOpenAI({ models: [{ id: "gpt-4o-mini" }], apiKey: "sk-configured" });
    const closers = new Closers();
    try {
      const gateway = await startTestGateway(
        backendToml("openai", cloud.url, "openai", 'api_key_env = "TEST_OPENAI_KEY"'),
        closers,
        { TEST_OPENAI_KEY: "sk-configured" },
      );
      const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "sk-client", maxRetries: 0 });
      const { data, response } = await client.chat.completions
        .create(
          { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 100 },
          { headers: { "x-request-id": "trace-123" } },
        )
        .withResponse();
      assert.equal(data.choices[0]?.message.content, "echo: hi");
      assert.equal(response.headers.get("x-gateway-backend-type"), "cloud");
      assert.equal(response.headers.get("x-gateway-privacy-zone"), "open");
      assert.match(response.headers.get("x-gateway-cost-estimated") ?? "", /^0\.0000\d+$/);
      assert.equal(response.headers.get("x-request-id"), "trace-123");
      const sent = cloud.requests.findLast((r) => r.path === "/v1/chat/completions");
      assert.equal(sent?.headers["authorization"], "Bearer sk-configured");
      assert.equal(sent?.headers["x-request-id"], "trace-123");
      assert.ok(cloud.requests.every((r) => r.headers["authorization"] === "Bearer sk-configured"));
    } finally {
      await closers.closeAll();
      await cloud.close();
    }
  });

  it("a wrong key makes the backend unhealthy (its probe gets 401)", async () => {
    const cloud = await startFakeOpenAI({ models: [{ id: "gpt-4o" }], apiKey: "sk-right" });
    const closers = new Closers();
    try {
      const gateway = await startTestGateway(
        backendToml("openai", cloud.url, "openai", 'api_key_env = "TEST_OPENAI_KEY"'),
        closers,
        { TEST_OPENAI_KEY: "sk-wrong" },
      );
      const health = await fetch(`${gateway.url}/health`);
      assert.equal(health.status, 503);
      assert.equal(((await health.json()) as { status: string }).status, "unhealthy");
    } finally {
      await closers.closeAll();
      await cloud.close();
    }
  });
});
