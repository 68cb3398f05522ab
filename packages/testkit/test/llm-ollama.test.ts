import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import OpenAI from "openai";
import { request } from "undici";
import { embeddingOf, type FakeLlmServer, startFakeOllama } from "../src/llm/index.ts";
import { waitUntil } from "../src/wait.ts";

async function postJson(server: FakeLlmServer, path: string, body: unknown) {
  const response = await request(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

function ndjson(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("fake Ollama server, native API", () => {
  let server: FakeLlmServer;
  before(async () => {
    server = await startFakeOllama({
      chunks: 3,
      models: [
        { id: "llama3.2:latest", contextLength: 131072, capabilities: ["completion", "tools", "vision"] },
        { id: "nomic-embed-text:latest", capabilities: ["embedding"], embeddingDimensions: 4 },
      ],
    });
  });
  after(() => server.close());

  it("reports its version, its models and that it runs", async () => {
    const version = await request(`${server.url}/api/version`);
    assert.match(((await version.body.json()) as { version: string }).version, /^\d+\.\d+\.\d+$/);
    const tags = (await (await request(`${server.url}/api/tags`)).body.json()) as {
      models: Array<{ name: string; model: string; details: { format: string } }>;
    };
    assert.deepEqual(
      tags.models.map((m) => m.name),
      ["llama3.2:latest", "nomic-embed-text:latest"],
    );
    assert.equal(tags.models[0]?.details.format, "gguf");
    assert.equal(await (await request(`${server.url}/`)).body.text(), "Ollama is running");
  });

  it("shows a model's context length and capabilities as recent Ollama does", async () => {
    const shown = await postJson(server, "/api/show", { model: "llama3.2:latest" });
    assert.equal(shown.status, 200);
    const body = JSON.parse(shown.text) as { model_info: Record<string, unknown>; capabilities: string[] };
    const arch = body.model_info["general.architecture"];
    assert.equal(body.model_info[`${arch}.context_length`], 131072);
    assert.deepEqual(body.capabilities, ["completion", "tools", "vision"]);
    const legacyName = await postJson(server, "/api/show", { name: "nomic-embed-text:latest" });
    assert.deepEqual((JSON.parse(legacyName.text) as { capabilities: string[] }).capabilities, ["embedding"]);
    const missing = await postJson(server, "/api/show", { model: "nope" });
    assert.equal(missing.status, 404);
    assert.equal(typeof (JSON.parse(missing.text) as { error: string }).error, "string");
  });

  it("streams /api/chat as NDJSON by default and answers in one object with stream false", async () => {
    const streamed = await postJson(server, "/api/chat", {
      model: "llama3.2:latest",
      messages: [{ role: "user", content: "hi ollama" }],
    });
    assert.equal(streamed.headers["content-type"], "application/x-ndjson");
    const lines = ndjson(streamed.text);
    assert.equal(lines.length, 4);
    const content = lines.map((line) => (line.message as { content: string }).content).join("");
    assert.equal(content, "echo: hi ollama");
    const last = lines.at(-1)!;
    assert.equal(last.done, true);
    assert.equal(last.done_reason, "stop");
    assert.equal(typeof last.eval_count, "number");
    assert.ok(lines.slice(0, -1).every((line) => line.done === false));

    const whole = await postJson(server, "/api/chat", {
      model: "llama3.2:latest",
      stream: false,
      messages: [{ role: "user", content: "hi ollama" }],
    });
    const body = JSON.parse(whole.text) as { message: { role: string; content: string }; done: boolean };
    assert.deepEqual(body.message, { role: "assistant", content: "echo: hi ollama" });
    assert.equal(body.done, true);
  });

  it("answers tool calls with arguments as an object", async () => {
    const response = await postJson(server, "/api/chat", {
      model: "llama3.2:latest",
      stream: false,
      messages: [{ role: "user", content: "find it" }],
      tools: [{ type: "function", function: { name: "search", parameters: { type: "object" } } }],
    });
    const body = JSON.parse(response.text) as {
      message: { tool_calls: Array<{ function: { name: string; arguments: unknown } }> };
    };
    assert.equal(body.message.tool_calls[0]?.function.name, "search");
    assert.deepEqual(body.message.tool_calls[0]?.function.arguments, { query: "find it" });
  });

  it("generates, loads and unloads through /api/generate", async () => {
    const generated = ndjson(
      (await postJson(server, "/api/generate", { model: "llama3.2:latest", prompt: "complete me" })).text,
    );
    assert.equal(generated.map((line) => line.response).join(""), "echo: complete me");
    const unloaded = await postJson(server, "/api/generate", { model: "llama3.2:latest", keep_alive: 0 });
    assert.equal((JSON.parse(unloaded.text) as { done_reason: string }).done_reason, "unload");
  });

  it("embeds through /api/embed and refuses chat models there", async () => {
    const embedded = await postJson(server, "/api/embed", { model: "nomic-embed-text:latest", input: ["x", "y"] });
    const body = JSON.parse(embedded.text) as { embeddings: number[][] };
    assert.deepEqual(body.embeddings, [embeddingOf("x", 4), embeddingOf("y", 4)]);
    assert.equal((await postJson(server, "/api/embed", { model: "llama3.2:latest", input: "x" })).status, 400);
    assert.equal((await postJson(server, "/api/chat", { model: "nomic-embed-text:latest", messages: [] })).status, 200);
    const chatOnEmbedder = await postJson(server, "/api/chat", {
      model: "nomic-embed-text:latest",
      messages: [{ role: "user", content: "x" }],
    });
    assert.equal(chatOnEmbedder.status, 400);
  });

  it("answers a status fault with Ollama's error shape on native paths", async () => {
    server.setFault({ kind: "status", status: 500, scope: "inference" });
    const failed = await postJson(server, "/api/chat", { model: "llama3.2:latest", messages: [] });
    assert.equal(failed.status, 500);
    assert.equal(typeof (JSON.parse(failed.text) as { error: unknown }).error, "string");
    assert.equal((await request(`${server.url}/api/tags`)).statusCode, 200);
    server.setFault({ kind: "none" });
  });

  it("dies mid-stream on NDJSON", async () => {
    server.setFault({ kind: "die-mid-stream", afterChunks: 1 });
    const response = await request(`${server.url}/api/chat`, {
      method: "POST",
      body: JSON.stringify({ model: "llama3.2:latest", messages: [{ role: "user", content: "die" }] }),
    });
    let received = "";
    await assert.rejects(async () => {
      for await (const chunk of response.body) received += chunk.toString();
    });
    assert.equal(ndjson(received).length, 1);
    server.setFault({ kind: "none" });
  });
});

describe("fake Ollama server, OpenAI-compatible API", () => {
  let server: FakeLlmServer;
  let client: OpenAI;
  before(async () => {
    server = await startFakeOllama({
      lineEnding: "\r\n",
      models: [{ id: "qwen3:8b" }, { id: "all-minilm:latest", capabilities: ["embedding"], embeddingDimensions: 6 }],
    });
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "ollama", maxRetries: 0 });
  });
  after(() => server.close());

  it("lists models and chats through the SDK, streamed over CRLF", async () => {
    const models = await client.models.list();
    assert.deepEqual(
      models.data.map((m) => [m.id, m.owned_by]),
      [
        ["qwen3:8b", "library"],
        ["all-minilm:latest", "library"],
      ],
    );
    const completion = await client.chat.completions.create({
      model: "qwen3:8b",
      messages: [{ role: "user", content: "compat" }],
    });
    assert.equal(completion.choices[0]?.message.content, "echo: compat");
    assert.equal(completion.system_fingerprint, "fp_ollama");
    let text = "";
    for await (const chunk of await client.chat.completions.create({
      model: "qwen3:8b",
      messages: [{ role: "user", content: "compat" }],
      stream: true,
    })) {
      text += chunk.choices[0]?.delta.content ?? "";
    }
    assert.equal(text, "echo: compat");
  });

  it("streams a tool call whole in one delta, as Ollama does", async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({
        model: "qwen3:8b",
        stream: true,
        messages: [{ role: "user", content: "tool please" }],
        tools: [{ type: "function", function: { name: "act" } }],
      }),
    });
    const events = (await response.text()).split("\r\n\r\n").filter((event) => event.startsWith("data: {"));
    const withCalls = events
      .map((event) => JSON.parse(event.slice(6)) as { choices: Array<{ delta: { tool_calls?: unknown[] } }> })
      .filter((chunk) => chunk.choices[0]?.delta.tool_calls);
    assert.equal(withCalls.length, 1);
    const call = withCalls[0]?.choices[0]?.delta.tool_calls?.[0] as { function: { name: string; arguments: string } };
    assert.equal(call.function.name, "act");
    assert.deepEqual(JSON.parse(call.function.arguments), { query: "tool please" });

    const final = await client.chat.completions
      .stream({
        model: "qwen3:8b",
        messages: [{ role: "user", content: "tool please" }],
        tools: [{ type: "function", function: { name: "act" } }],
      })
      .finalChatCompletion();
    const assembled = final.choices[0]?.message.tool_calls?.[0];
    assert.ok(assembled?.type === "function" && assembled.function.name === "act");
  });

  it("embeds through /v1/embeddings", async () => {
    const result = await client.embeddings.create({ model: "all-minilm:latest", input: "vector" });
    assert.deepEqual(result.data[0]?.embedding, embeddingOf("vector", 6));
  });

  it("refuses connections and answers OpenAI-shaped faults on /v1 paths", async () => {
    server.setFault({ kind: "refuse" });
    await assert.rejects(client.models.list());
    server.setFault({ kind: "status", status: 503 });
    const failed = await fetch(`${server.url}/v1/models`);
    assert.equal(failed.status, 503);
    assert.equal(typeof ((await failed.json()) as { error: { message: string } }).error.message, "string");
    server.setFault({ kind: "stall", scope: "inference" });
    const pending = client.chat.completions.create({ model: "qwen3:8b", messages: [{ role: "user", content: "x" }] });
    await waitUntil(() => server.inFlight === 1, { what: "the stalled request" });
    assert.equal((await client.models.list()).data.length, 2);
    server.setFault({ kind: "none" });
    assert.equal((await pending).choices[0]?.message.content, "echo: x");
  });
});
