// OpenAI's Responses API served by the gateway, driven by the official openai SDK's `responses`, against an
// OpenAI-speaking backend (chat completions) and an anthropic backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeAnthropic, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import OpenAI from "openai";
import { backendToml, Closers, FAILOVER_ROUTING, http, postJson, sseData, startTestGateway } from "../helpers.ts";
import { assertCounted } from "./counts.ts";

const weather = {
  type: "function" as const,
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  strict: false,
};

describe("OpenAI Responses through the gateway (openai SDK)", () => {
  let vllm: FakeLlmServer;
  let claude: FakeLlmServer;
  let client: OpenAI;
  let url: string;
  let calls = 0;
  const closers = new Closers();

  before(async () => {
    vllm = await startFakeOpenAI({
      models: [{ id: "llama3", capabilities: ["completion", "tools", "json"] }],
      chunks: 3,
    });
    claude = await startFakeAnthropic({ models: [{ id: "claude-haiku-4-5" }], apiKey: "k" });
    const gateway = await startTestGateway(
      backendToml("gpu-box", vllm.url, "vllm") + backendToml("claude", claude.url, "anthropic", 'api_key_env = "K"'),
      closers,
      { K: "k" },
    );
    url = gateway.url;
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "client-key", maxRetries: 0 });
  });
  after(async () => {
    await closers.closeAll();
    await vllm.close();
    await claude.close();
  });

  const lastSent = () =>
    vllm.requests.findLast((r) => r.path === "/v1/chat/completions")!.body as Record<string, unknown>;

  it("create: instructions, input and max_output_tokens reach the backend; output_text and usage come back", async () => {
    calls++;
    const { data, response } = await client.responses
      .create({ model: "llama3", instructions: "be brief", input: "ping", max_output_tokens: 64, temperature: 0.5 })
      .withResponse();
    assert.equal(data.object, "response");
    assert.match(data.id, /^resp_/);
    assert.equal(data.status, "completed");
    assert.equal(data.output_text, "echo: ping");
    assert.ok((data.usage?.output_tokens ?? 0) > 0);
    assert.equal(response.headers.get("x-gateway-backend"), "gpu-box");
    const sent = lastSent();
    assert.deepEqual(sent["messages"], [
      { role: "system", content: "be brief" },
      { role: "user", content: "ping" },
    ]);
    assert.equal(sent["max_tokens"], 64);
    assert.equal(sent["temperature"], 0.5);
    const again = await client.responses.retrieve(data.id);
    assert.equal(again.output_text, "echo: ping");
  });

  it("function calls round trip, and previous_response_id continues the stored conversation", async () => {
    calls++;
    const first = await client.responses.create({ model: "llama3", input: "Paris", tools: [weather] });
    const call = first.output.find((item) => item.type === "function_call");
    assert.ok(call && call.type === "function_call");
    assert.equal(call.name, "get_weather");
    assert.deepEqual(JSON.parse(call.arguments), { query: "Paris" });
    calls++;
    const second = await client.responses.create({
      model: "llama3",
      previous_response_id: first.id,
      tools: [weather],
      input: [{ type: "function_call_output", call_id: call.call_id, output: "sunny" }],
    });
    assert.equal(second.output_text, "tool result: sunny");
    assert.equal(second.previous_response_id, first.id);
    const sent = lastSent()["messages"] as Array<Record<string, unknown>>;
    assert.deepEqual(sent, [
      { role: "user", content: "Paris" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: call.call_id, type: "function", function: { name: "get_weather", arguments: call.arguments } },
        ],
      },
      { role: "tool", tool_call_id: call.call_id, content: "sunny" },
    ]);
    // The items given explicitly (no store) carry the same conversation.
    calls++;
    const explicit = await client.responses.create({
      model: "llama3",
      store: false,
      tools: [weather],
      input: [
        { role: "user", content: [{ type: "input_text", text: "Paris" }] },
        { type: "function_call", call_id: "c1", name: "get_weather", arguments: '{"query":"Paris"}' },
        { type: "function_call_output", call_id: "c1", output: "rain" },
      ],
    });
    assert.equal(explicit.output_text, "tool result: rain");
    await assert.rejects(client.responses.retrieve(explicit.id), (error: unknown) => {
      assert.ok(error instanceof OpenAI.NotFoundError);
      return true;
    });
  });

  it("stream: the semantic events with sequence numbers, and the SDK's final response", async () => {
    calls++;
    const stream = client.responses.stream({ model: "llama3", input: "hello" });
    const types: string[] = [];
    const sequence: number[] = [];
    stream.on("event", (event) => {
      types.push(event.type);
      sequence.push(event.sequence_number);
    });
    const final = await stream.finalResponse();
    assert.equal(final.output_text, "echo: hello");
    assert.deepEqual(
      [...new Set(types)],
      [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
      ],
    );
    assert.deepEqual(
      sequence,
      sequence.map((_, index) => index),
    );
    assert.equal((await client.responses.retrieve(final.id)).output_text, "echo: hello", "a streamed response is kept");
    calls++;
    const tools = client.responses.stream({ model: "llama3", input: "Oslo", tools: [weather] });
    const deltas: string[] = [];
    tools.on("response.function_call_arguments.delta", (event) => deltas.push(event.delta));
    const called = await tools.finalResponse();
    const item = called.output[0];
    assert.ok(item?.type === "function_call");
    assert.deepEqual(JSON.parse(item.arguments), { query: "Oslo" });
    assert.equal(deltas.join(""), item.arguments);
  });

  it("text.format json_schema becomes response_format; an anthropic backend answers too", async () => {
    calls++;
    await client.responses.create({
      model: "llama3",
      input: "x",
      text: { format: { type: "json_schema", name: "thing", schema: { type: "object" }, strict: true } },
    });
    assert.deepEqual(lastSent()["response_format"], {
      type: "json_schema",
      json_schema: { name: "thing", schema: { type: "object" }, strict: true },
    });
    calls++;
    const answer = await client.responses.create({ model: "claude-haiku-4-5", instructions: "sys", input: "yo" });
    assert.equal(answer.output_text, "echo: yo");
    const sent = claude.requests.findLast((r) => r.path === "/v1/messages")!.body as Record<string, unknown>;
    assert.equal(sent["system"], "sys");
  });

  it("delete, unknown ids and errors in OpenAI's envelope; a failure mid-stream is response.failed", async () => {
    calls++;
    const kept = await client.responses.create({ model: "llama3", input: "keep me" });
    const deleted = await http(`${url}/v1/responses/${kept.id}`, { method: "DELETE" });
    assert.deepEqual(deleted.json(), { id: kept.id, object: "response", deleted: true });
    assert.equal((await http(`${url}/v1/responses/${kept.id}`)).status, 404);
    const unknown = await postJson(`${url}/v1/responses`, {
      model: "llama3",
      input: "x",
      previous_response_id: "resp_nope",
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json().error.param, "previous_response_id");
    calls++;
    await assert.rejects(client.responses.create({ model: "nope", input: "x" }), OpenAI.NotFoundError);
    calls++;
    vllm.setFault({ kind: "die-mid-stream", afterChunks: 2 });
    try {
      const raw = await postJson(`${url}/v1/responses`, { model: "llama3", input: "x", stream: true });
      const events = sseData(raw.text).map((data) => JSON.parse(data).type);
      assert.equal(events.at(-1), "response.failed");
      assert.ok(events.includes("error"));
    } finally {
      vllm.setFault({ kind: "none" });
    }
  });

  it("stats and metrics count every call", async () => {
    await assertCounted(url, calls, "chat");
  });
});

describe("OpenAI Responses to an openai backend: as the client wrote it, when it keeps its own state", () => {
  let openai: FakeLlmServer;
  let compatible: FakeLlmServer;
  let client: OpenAI;
  let url: string;
  const closers = new Closers();
  const lastSent = () => openai.requests.findLast((r) => r.path === "/v1/responses")!;
  /** Chat requests the OpenAI-compatible backend was sent (its health probes aside). */
  const compatibleChats = () => compatible.requests.filter((r) => r.path === "/v1/chat/completions").length;
  // Codex's way: no state at the provider, the whole conversation each turn, the reasoning given back encrypted.
  const codexTurn = {
    model: "gpt-5",
    store: false,
    include: ["reasoning.encrypted_content" as const],
    reasoning: { effort: "low" as const },
    tools: [weather],
  };

  before(async () => {
    openai = await startFakeOpenAI({
      models: [{ id: "gpt-5" }, { id: "gpt-5-codex", responsesOnly: true }],
      apiKey: "sk-openai",
      chunks: 3,
    });
    // An OpenAI-compatible server with gpt-5 too, behind OpenAI by priority.
    compatible = await startFakeOpenAI({ models: [{ id: "gpt-5" }] });
    const gateway = await startTestGateway(
      FAILOVER_ROUTING +
        backendToml("openai", openai.url, "openai", 'api_key_env = "OPENAI_KEY"\npriority = 10') +
        backendToml("compatible", compatible.url, "vllm", "priority = 90"),
      closers,
      { OPENAI_KEY: "sk-openai" },
    );
    url = gateway.url;
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "client-key", maxRetries: 0 });
  });
  after(async () => {
    await closers.closeAll();
    await openai.close();
    await compatible.close();
  });

  it("a reasoning turn and its tool call: the encrypted reasoning goes back to OpenAI, verified, in a stream", async () => {
    const first = await client.responses.create({ ...codexTurn, input: "Paris" }).withResponse();
    assert.equal(first.response.headers.get("x-gateway-backend"), "openai");
    assert.deepEqual(lastSent().body, { ...codexTurn, input: "Paris" }, "the body as written");
    assert.equal(lastSent().headers["authorization"], "Bearer sk-openai");
    const [reasoning, call] = first.data.output;
    assert.ok(reasoning?.type === "reasoning" && typeof reasoning.encrypted_content === "string");
    assert.ok(call?.type === "function_call");
    assert.deepEqual(JSON.parse(call.arguments), { query: "Paris" });

    const input = [
      { role: "user" as const, content: "Paris" },
      ...first.data.output,
      { type: "function_call_output" as const, call_id: call.call_id, output: "sunny" },
    ];
    const stream = client.responses.stream({ ...codexTurn, input: input as OpenAI.Responses.ResponseInput });
    const types: string[] = [];
    stream.on("event", (event) => types.push(event.type));
    const second = await stream.finalResponse();
    assert.equal(second.output_text, "tool result: sunny");
    assert.equal(types.at(-1), "response.completed");
    assert.ok(!types.includes("[DONE]"));
    assert.deepEqual((lastSent().body as { input: unknown[] }).input[1], reasoning, "the reasoning item unchanged");

    // OpenAI's own refusal of a changed reasoning item reaches the client.
    const tampered = input.map((item) =>
      "type" in item && item.type === "reasoning" ? { ...item, encrypted_content: "forged.seal" } : item,
    );
    await assert.rejects(
      client.responses.create({ ...codexTurn, input: tampered as OpenAI.Responses.ResponseInput }),
      (error: unknown) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.match(error.message, /could not be verified/);
        return true;
      },
    );
  });

  it("a model only the Responses API serves, and usage counted from OpenAI's answer", async () => {
    const answer = await client.responses.create({ model: "gpt-5-codex", store: false, input: "hi" });
    assert.equal(answer.output_text, "echo: hi");
    // A response the gateway keeps goes through chat completions, which OpenAI refuses for this model.
    const kept = await postJson(`${url}/v1/responses`, { model: "gpt-5-codex", input: "hi" });
    assert.equal(kept.status, 400);
    assert.match(kept.json().error.message, /only supported in v1\/responses/);
    const metrics = (await http(`${url}/metrics`)).text.split("\n");
    assert.ok(
      metrics.some(
        (row) =>
          row.startsWith("gateway_tokens_total{") && row.includes('backend="openai"') && row.includes('type="prompt"'),
      ),
    );
  });

  it("hosted tools: web search runs at OpenAI; never failed over; a kept response cannot have them", async () => {
    const searched = await client.responses.create({
      model: "gpt-5",
      store: false,
      input: "switchboard",
      tools: [{ type: "web_search" }],
    });
    assert.deepEqual(
      searched.output.map((item) => item.type),
      ["web_search_call", "message"],
    );
    assert.equal(searched.output_text, "searched: switchboard");

    const kept = await postJson(`${url}/v1/responses`, {
      model: "gpt-5",
      input: "x",
      tools: [{ type: "web_search" }],
    });
    assert.equal(kept.status, 400);
    assert.equal(kept.json().error.code, "untranslatable_request");
    assert.match(kept.json().error.message, /^tools\[0\]: the "web_search" tool can only go to OpenAI's own/);

    const before = compatibleChats();
    openai.setFault({ kind: "status", status: 500, scope: "inference" });
    try {
      const failed = await postJson(`${url}/v1/responses`, {
        model: "gpt-5",
        store: false,
        input: "x",
        tools: [{ type: "web_search" }],
      });
      assert.equal(failed.status, 502);
      assert.equal(compatibleChats(), before, "the OpenAI-compatible backend was never asked");
      // Without a hosted tool the same request fails over, through the translation.
      const plain = await postJson(`${url}/v1/responses`, { model: "gpt-5", store: false, input: "x" });
      assert.equal(plain.status, 200);
      assert.equal(plain.headers["x-gateway-backend"], "compatible");
      assert.equal(plain.json().output[0].content[0].text, "echo: x");
    } finally {
      openai.setFault({ kind: "none" });
    }
  });

  it("a stream that breaks off ends with the API's error event", async () => {
    await waitUntil(async () => (await postJson(`${url}/v1/responses`, { ...codexTurn, input: "x" })).status === 200, {
      what: "openai serving again",
    });
    openai.setFault({ kind: "die-mid-stream", afterChunks: 3 });
    try {
      const raw = await postJson(`${url}/v1/responses`, { model: "gpt-5", store: false, input: "x", stream: true });
      assert.equal(raw.status, 200);
      assert.equal(raw.headers["x-gateway-backend"], "openai");
      const events = sseData(raw.text).map((data) => JSON.parse(data));
      assert.equal(events.at(-1).type, "error");
      assert.match(events.at(-1).message, /broke off/);
      assert.equal(events[0].type, "response.created");
    } finally {
      openai.setFault({ kind: "none" });
    }
  });
});
