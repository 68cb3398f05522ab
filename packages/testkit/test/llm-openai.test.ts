import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import OpenAI, { AuthenticationError, NotFoundError } from "openai";
import { embeddingOf, type FakeLlmServer, startFakeOpenAI } from "../src/llm/index.ts";
import { waitUntil } from "../src/wait.ts";

const chatBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: "hello there" }], ...extra });

function post(server: FakeLlmServer, path: string, body: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    ...init,
  });
}

/** The `data:` payloads of an SSE body (LF or CRLF). */
function sseData(text: string): string[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((event) => event.startsWith("data: "))
    .map((event) => event.slice("data: ".length));
}

describe("fake OpenAI server through the official SDK", () => {
  let server: FakeLlmServer;
  let client: OpenAI;
  before(async () => {
    server = await startFakeOpenAI({
      models: [{ id: "fake-model" }, { id: "embedder", capabilities: ["embedding"], embeddingDimensions: 8 }],
    });
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "sk-test", maxRetries: 0 });
  });
  after(() => server.close());

  it("lists models", async () => {
    const page = await client.models.list();
    assert.deepEqual(
      page.data.map((model) => model.id),
      ["fake-model", "embedder"],
    );
    assert.equal(page.data[0]?.object, "model");
  });

  it("answers a chat completion with usage, recording the request", async () => {
    const completion = await client.chat.completions.create({
      model: "fake-model",
      messages: [{ role: "user", content: "hello there" }],
      temperature: 0.5,
    });
    assert.equal(completion.object, "chat.completion");
    assert.equal(completion.choices[0]?.message.content, "echo: hello there");
    assert.equal(completion.choices[0]?.finish_reason, "stop");
    assert.ok(completion.usage && completion.usage.total_tokens === completion.usage.prompt_tokens + 5);
    const recorded = server.requests.at(-1);
    assert.equal(recorded?.path, "/v1/chat/completions");
    assert.equal(recorded?.headers.authorization, "Bearer sk-test");
    assert.equal((recorded?.body as { temperature?: number } | undefined)?.temperature, 0.5);
  });

  it("streams a chat completion with a usage chunk", async () => {
    const stream = await client.chat.completions.create({
      model: "fake-model",
      messages: [{ role: "user", content: "stream me" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null = null;
    let usageTotal = 0;
    let contentChunks = 0;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) {
        text += choice.delta.content;
        contentChunks++;
      }
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usageTotal = chunk.usage.total_tokens;
    }
    assert.equal(text, "echo: stream me");
    assert.equal(contentChunks, 5);
    assert.equal(finish, "stop");
    assert.ok(usageTotal > 0);
  });

  it("calls tools, non-streaming and streaming, and answers the tool result", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "weather in Oslo" }];
    const plain = await client.chat.completions.create({ model: "fake-model", messages, tools });
    const call = plain.choices[0]?.message.tool_calls?.[0];
    assert.equal(plain.choices[0]?.finish_reason, "tool_calls");
    assert.ok(call && call.type === "function");
    assert.equal(call.function.name, "lookup");
    assert.deepEqual(JSON.parse(call.function.arguments), { query: "weather in Oslo" });

    // The SDK's stream helper assembles tool-call deltas exactly as OpenAI sends them.
    const runner = client.chat.completions.stream({ model: "fake-model", messages, tools });
    const final = await runner.finalChatCompletion();
    const streamed = final.choices[0]?.message.tool_calls?.[0];
    assert.ok(streamed && streamed.type === "function");
    assert.equal(streamed.function.name, "lookup");
    assert.deepEqual(JSON.parse(streamed.function.arguments), { query: "weather in Oslo" });
    assert.equal(final.choices[0]?.finish_reason, "tool_calls");

    const answer = await client.chat.completions.create({
      model: "fake-model",
      tools,
      messages: [
        ...messages,
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: call.id, content: "sunny" },
      ],
    });
    assert.equal(answer.choices[0]?.message.content, "tool result: sunny");
  });

  it("embeds strings and arrays (base64 as the SDK asks, and float)", async () => {
    const viaSdk = await client.embeddings.create({ model: "embedder", input: ["a", "b"] });
    assert.equal(viaSdk.data.length, 2);
    assert.deepEqual(viaSdk.data[1]?.embedding, embeddingOf("b", 8));
    const raw = await post(server, "/v1/embeddings", JSON.stringify({ model: "embedder", input: "a" }));
    const body = (await raw.json()) as { data: Array<{ embedding: number[]; index: number }>; usage: object };
    assert.deepEqual(body.data[0]?.embedding, embeddingOf("a", 8));
    assert.ok("prompt_tokens" in body.usage);
  });

  it("answers unknown models and bad requests in OpenAI's error envelope", async () => {
    await assert.rejects(
      client.chat.completions.create({ model: "nope", messages: [{ role: "user", content: "x" }] }),
      (error: unknown) => error instanceof NotFoundError && error.code === "model_not_found",
    );
    const badJson = await post(server, "/v1/chat/completions", "{not json");
    assert.equal(badJson.status, 400);
    const envelope = (await badJson.json()) as { error: Record<string, unknown> };
    assert.deepEqual(Object.keys(envelope.error).sort(), ["code", "message", "param", "type"]);
    const noMessages = await post(server, "/v1/chat/completions", JSON.stringify({ model: "fake-model" }));
    assert.equal(noMessages.status, 400);
    assert.equal(((await noMessages.json()) as { error: { param: string } }).error.param, "messages");
    const chatOnEmbedder = await post(server, "/v1/embeddings", JSON.stringify({ model: "fake-model", input: "x" }));
    assert.equal(chatOnEmbedder.status, 400);
    const emptyInput = await post(server, "/v1/embeddings", JSON.stringify({ model: "embedder", input: [] }));
    assert.equal(emptyInput.status, 400);
  });
});

describe("fake OpenAI server wire details", () => {
  it("writes SSE with CRLF line endings when asked, ending with [DONE]", async (t) => {
    const server = await startFakeOpenAI({ lineEnding: "\r\n", chunks: 3 });
    t.after(() => server.close());
    const response = await post(server, "/v1/chat/completions", chatBody({ stream: true }));
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    const text = await response.text();
    assert.ok(text.includes("\r\n\r\n"));
    assert.doesNotMatch(text, /[^\r]\n/);
    const data = sseData(text);
    assert.equal(data.at(-1), "[DONE]");
    // role chunk, 3 content chunks, finish chunk, [DONE]
    assert.equal(data.length, 6);
    const first = JSON.parse(data[0] ?? "{}") as { choices: Array<{ delta: { role?: string } }> };
    assert.equal(first.choices[0]?.delta.role, "assistant");

    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "x", maxRetries: 0 });
    let streamed = "";
    for await (const chunk of await client.chat.completions.create({
      model: "fake-model",
      messages: [{ role: "user", content: "crlf" }],
      stream: true,
    })) {
      streamed += chunk.choices[0]?.delta.content ?? "";
    }
    assert.equal(streamed, "echo: crlf");
  });

  it("uses a custom reply and chunk count, and honours max_tokens", async (t) => {
    const server = await startFakeOpenAI({ reply: (request) => `model ${request.model} says hi`, chunks: 2 });
    t.after(() => server.close());
    const text = await (await post(server, "/v1/chat/completions", chatBody({ stream: true }))).text();
    const contents = sseData(text)
      .filter((data) => data !== "[DONE]")
      .map((data) => (JSON.parse(data) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta)
      .filter((delta) => delta?.content);
    assert.equal(contents.length, 2);
    const limited = (await (await post(server, "/v1/chat/completions", chatBody({ max_tokens: 1 }))).json()) as {
      choices: Array<{ finish_reason: string; message: { content: string } }>;
    };
    assert.equal(limited.choices[0]?.finish_reason, "length");
    assert.equal(limited.choices[0]?.message.content, "mode");
  });

  it("streams several tool calls as OpenAI does: header with the role first, then argument fragments", async (t) => {
    const server = await startFakeOpenAI({
      chunks: 3,
      reply: () => ({
        toolCalls: [
          { id: "call_a", name: "first", arguments: { city: "Oslo" } },
          { id: "call_b", name: "second", arguments: '{"n":2}' },
        ],
      }),
    });
    t.after(() => server.close());
    const tools = [{ type: "function", function: { name: "first" } }];
    const raw = await (await post(server, "/v1/chat/completions", chatBody({ stream: true, tools }))).text();
    const deltas = sseData(raw)
      .filter((data) => data !== "[DONE]")
      .map((data) => (JSON.parse(data) as { choices: Array<{ delta: Record<string, unknown> }> }).choices[0]?.delta);
    assert.equal(deltas[0]?.role, "assistant");
    assert.deepEqual(deltas[0]?.tool_calls, [
      { index: 0, id: "call_a", type: "function", function: { name: "first", arguments: "" } },
    ]);
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "x", maxRetries: 0 });
    const final = await client.chat.completions
      .stream({
        model: "fake-model",
        messages: [{ role: "user", content: "go" }],
        tools: [{ type: "function", function: { name: "first" } }],
      })
      .finalChatCompletion();
    const calls = final.choices[0]?.message.tool_calls ?? [];
    assert.deepEqual(
      calls.map((call) => (call.type === "function" ? [call.id, call.function.name, call.function.arguments] : [])),
      [
        ["call_a", "first", '{"city":"Oslo"}'],
        ["call_b", "second", '{"n":2}'],
      ],
    );
  });

  it("requires the API key when one is set", async (t) => {
    const server = await startFakeOpenAI({ apiKey: "sk-right" });
    t.after(() => server.close());
    const wrong = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "sk-wrong", maxRetries: 0 });
    await assert.rejects(wrong.models.list(), (error: unknown) => error instanceof AuthenticationError);
    const missing = await fetch(`${server.url}/v1/models`);
    assert.equal(missing.status, 401);
    const right = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "sk-right", maxRetries: 0 });
    assert.equal((await right.models.list()).data.length, 1);
  });

  it("changes its model list at run time", async (t) => {
    const server = await startFakeOpenAI();
    t.after(() => server.close());
    server.setModels([{ id: "other" }]);
    const body = (await (await fetch(`${server.url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    assert.deepEqual(
      body.data.map((m) => m.id),
      ["other"],
    );
    assert.equal((await post(server, "/v1/chat/completions", chatBody())).status, 404);
  });
});

describe("fake OpenAI server fault modes", () => {
  let server: FakeLlmServer;
  before(async () => {
    server = await startFakeOpenAI({ chunks: 4 });
  });
  after(() => server.close());

  it("refuses connections until healed", async () => {
    server.setFault({ kind: "refuse" });
    await assert.rejects(fetch(`${server.url}/v1/models`), (error: Error) => {
      const cause = (error as { cause?: { code?: string } }).cause;
      return cause?.code === "ECONNREFUSED";
    });
    server.setFault({ kind: "none" });
    assert.equal((await fetch(`${server.url}/v1/models`)).status, 200);
  });

  it("answers with a status, a default or given body, in the chosen scope", async () => {
    server.setFault({ kind: "status", status: 500 });
    const failed = await post(server, "/v1/chat/completions", chatBody());
    assert.equal(failed.status, 500);
    assert.equal(((await failed.json()) as { error: { type: string } }).error.type, "server_error");
    assert.equal((await fetch(`${server.url}/v1/models`)).status, 500);

    server.setFault({ kind: "status", status: 429, body: { error: { message: "slow down" } }, scope: "inference" });
    const limited = await post(server, "/v1/chat/completions", chatBody());
    assert.equal(limited.status, 429);
    assert.deepEqual(await limited.json(), { error: { message: "slow down" } });
    assert.equal((await fetch(`${server.url}/v1/models`)).status, 200);
    server.setFault({ kind: "none" });
    assert.equal((await post(server, "/v1/chat/completions", chatBody())).status, 200);
  });

  it("stalls until the fault changes, then answers", async () => {
    server.setFault({ kind: "stall" });
    const pending = post(server, "/v1/chat/completions", chatBody());
    await waitUntil(() => server.inFlight === 1, { what: "the stalled request to arrive" });
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false);
    server.setFault({ kind: "none" });
    const response = await pending;
    assert.equal(response.status, 200);
    await response.text();
    await waitUntil(() => server.inFlight === 0, { what: "no request in flight" });
  });

  it("counts a client that gives up on a stalled request as an abort", async () => {
    server.setFault({ kind: "stall" });
    const before = server.aborted();
    const controller = new AbortController();
    const pending = post(server, "/v1/chat/completions", chatBody(), { signal: controller.signal });
    await waitUntil(() => server.inFlight === 1, { what: "the stalled request to arrive" });
    controller.abort();
    await assert.rejects(pending);
    await waitUntil(() => server.aborted() === before + 1, { what: "the abort to be counted" });
    assert.equal(server.inFlight, 0);
    server.setFault({ kind: "none" });
  });

  it("dies mid-stream after N events, and cuts a non-streaming body", async () => {
    server.setFault({ kind: "die-mid-stream", afterChunks: 2 });
    const response = await post(server, "/v1/chat/completions", chatBody({ stream: true }));
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    let received = "";
    await assert.rejects(async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += Buffer.from(value).toString("utf8");
      }
    });
    assert.equal(sseData(received).length, 2);
    assert.ok(!received.includes("[DONE]"));

    const plain = await post(server, "/v1/chat/completions", chatBody());
    await assert.rejects(plain.json());
    server.setFault({ kind: "none" });
    const aborted = server.aborted();
    assert.equal((await post(server, "/v1/chat/completions", chatBody())).status, 200);
    assert.equal(server.aborted(), aborted, "a death the server caused is not a client abort");
  });

  it("delays an answer, which then arrives intact", async () => {
    server.setFault({ kind: "delay", ms: 30 });
    const response = await post(server, "/v1/chat/completions", chatBody());
    assert.equal(response.status, 200);
    assert.equal(
      ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content,
      "echo: hello there",
    );
    server.setFault({ kind: "delay", ms: 60_000 });
    const controller = new AbortController();
    const pending = post(server, "/v1/chat/completions", chatBody(), { signal: controller.signal });
    await waitUntil(() => server.inFlight === 1, { what: "the delayed request to arrive" });
    controller.abort();
    await assert.rejects(pending);
    await waitUntil(() => server.inFlight === 0, { what: "the delayed request to end" });
    server.setFault({ kind: "none" });
  });

  it("counts a client that leaves a paced stream as an abort", async (t) => {
    const paced = await startFakeOpenAI({ chunks: 50, chunkIntervalMs: 20 });
    t.after(() => paced.close());
    const controller = new AbortController();
    const response = await post(paced, "/v1/chat/completions", chatBody({ stream: true }), {
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await waitUntil(() => paced.aborted() === 1, { what: "the abort to be counted" });
    await waitUntil(() => paced.inFlight === 0, { what: "the stream to end" });
  });

  it("closes with requests still stalled, without hanging", async (t) => {
    const stalled = await startFakeOpenAI();
    stalled.setFault({ kind: "stall" });
    const pending = post(stalled, "/v1/chat/completions", chatBody());
    await waitUntil(() => stalled.inFlight === 1, { what: "the stalled request to arrive" });
    await stalled.close();
    await assert.rejects(pending);
    t.diagnostic(`closed with ${stalled.requests.length} request(s) recorded`);
  });
});
