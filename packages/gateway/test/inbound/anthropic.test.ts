// Anthropic's Messages API served by the gateway, driven by the official @anthropic-ai/sdk, against an
// OpenAI-speaking backend (translated both ways) and against an anthropic backend.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { type FakeLlmServer, startFakeAnthropic, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import { backendToml, Closers, FAILOVER_ROUTING, http, postJson, sseData, startTestGateway } from "../helpers.ts";
import { assertCounted } from "./counts.ts";

const weather = {
  name: "get_weather",
  description: "Weather for a city",
  input_schema: { type: "object" as const, properties: { query: { type: "string" } }, required: ["query"] },
};

describe("Anthropic Messages through the gateway (@anthropic-ai/sdk)", () => {
  let vllm: FakeLlmServer;
  let claude: FakeLlmServer;
  let client: Anthropic;
  let url: string;
  let calls = 0;
  const closers = new Closers();

  before(async () => {
    vllm = await startFakeOpenAI({
      models: [{ id: "llama3", capabilities: ["completion", "tools", "vision"] }],
      chunks: 3,
    });
    claude = await startFakeAnthropic({ models: [{ id: "claude-haiku-4-5" }], apiKey: "sk-ant-1", chunks: 3 });
    const gateway = await startTestGateway(
      backendToml("gpu-box", vllm.url, "vllm") +
        backendToml("claude", claude.url, "anthropic", 'api_key_env = "ANTHROPIC_KEY"'),
      closers,
      { ANTHROPIC_KEY: "sk-ant-1" },
    );
    url = gateway.url;
    client = new Anthropic({ baseURL: gateway.url, apiKey: "client-key", maxRetries: 0 });
  });
  after(async () => {
    await closers.closeAll();
    await vllm.close();
    await claude.close();
  });

  const lastSent = (server: FakeLlmServer, path: string) => server.requests.findLast((r) => r.path === path)!;

  it("create: system, tools and max_tokens reach an OpenAI backend translated; the answer is a message", async () => {
    calls++;
    const { data, response } = await client.messages
      .create({
        model: "llama3",
        max_tokens: 256,
        system: [{ type: "text", text: "be brief" }],
        messages: [{ role: "user", content: "Paris" }],
        tools: [weather],
        tool_choice: { type: "auto" },
        stop_sequences: ["END"],
        metadata: { user_id: "u-1" },
      })
      .withResponse();
    assert.equal(data.type, "message");
    assert.match(data.id, /^msg_/);
    assert.equal(data.stop_reason, "tool_use");
    const call = data.content.find((block) => block.type === "tool_use");
    assert.ok(call && call.type === "tool_use");
    assert.equal(call.name, "get_weather");
    assert.deepEqual(call.input, { query: "Paris" });
    assert.ok(data.usage.input_tokens > 0 && data.usage.output_tokens > 0);
    assert.equal(response.headers.get("x-gateway-backend"), "gpu-box");
    assert.equal(response.headers.get("x-gateway-route-reason"), "capability-match");
    const sent = lastSent(vllm, "/v1/chat/completions").body as Record<string, unknown>;
    assert.deepEqual(sent["messages"], [
      { role: "system", content: "be brief" },
      { role: "user", content: "Paris" },
    ]);
    assert.equal(sent["max_tokens"], 256);
    assert.deepEqual(sent["stop"], ["END"]);
    assert.equal(sent["user"], "u-1");
    assert.equal(sent["tool_choice"], "auto");
    assert.deepEqual(sent["tools"], [
      {
        type: "function",
        function: { name: "get_weather", parameters: weather.input_schema, description: "Weather for a city" },
      },
    ]);
  });

  it("a tool round trip: tool_use and tool_result become an assistant tool call and a tool message, in order", async () => {
    calls++;
    const data = await client.messages.create({
      model: "llama3",
      max_tokens: 100,
      tools: [weather],
      messages: [
        { role: "user", content: "Paris" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "call_1", name: "get_weather", input: { query: "Paris" } }],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: [{ type: "text", text: "sunny" }] },
            { type: "text", text: "and tomorrow?" },
          ],
        },
      ],
    });
    const sent = lastSent(vllm, "/v1/chat/completions").body as { messages: unknown[] };
    assert.deepEqual(sent.messages, [
      { role: "user", content: "Paris" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"query":"Paris"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
      { role: "user", content: [{ type: "text", text: "and tomorrow?" }] },
    ]);
    assert.equal(data.content[0]?.type, "tool_use", "the last user turn offers tools again: the fake calls one");
  });

  it("stream: the exact event sequence, text deltas joined by the SDK's accumulator, usage at the end", async () => {
    calls++;
    const stream = client.messages.stream({
      model: "llama3",
      max_tokens: 50,
      messages: [{ role: "user", content: "ping" }],
    });
    const message = await stream.finalMessage();
    assert.equal(message.content[0]?.type === "text" && message.content[0].text, "echo: ping");
    assert.equal(message.stop_reason, "end_turn");
    assert.ok(message.usage.output_tokens > 0);
    // The raw sequence, as Claude Code reads it.
    calls++;
    const raw = await http(`${url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({
        model: "llama3",
        max_tokens: 50,
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    assert.equal(raw.status, 200);
    assert.match(String(raw.headers["content-type"]), /^text\/event-stream/);
    assert.equal(raw.headers["x-gateway-backend"], "gpu-box");
    const types = sseData(raw.text).map((data) => JSON.parse(data).type);
    assert.deepEqual(
      [...new Set(types)],
      [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
      ],
    );
    assert.equal(types.at(-1), "message_stop");
    assert.equal(types.filter((type) => type === "content_block_delta").length, 3);
    const sent = lastSent(vllm, "/v1/chat/completions").body as Record<string, unknown>;
    assert.deepEqual(sent["stream_options"], { include_usage: true });
  });

  it("stream with a tool call: a tool_use block with input_json_delta pieces", async () => {
    calls++;
    const stream = client.messages.stream({
      model: "llama3",
      max_tokens: 50,
      tools: [weather],
      messages: [{ role: "user", content: "Oslo" }],
    });
    const events: string[] = [];
    stream.on("streamEvent", (event) => {
      if (event.type === "content_block_delta") events.push(event.delta.type);
    });
    const message = await stream.finalMessage();
    assert.equal(message.stop_reason, "tool_use");
    const call = message.content[0];
    assert.ok(call?.type === "tool_use");
    assert.deepEqual(call.input, { query: "Oslo" });
    assert.ok(events.length > 0 && events.every((type) => type === "input_json_delta"));
  });

  it("an anthropic backend gets the request as written and answers as is: a tool round trip with thinking on", async () => {
    const request = {
      model: "claude-haiku-4-5",
      max_tokens: 2048,
      system: [{ type: "text" as const, text: "you are terse", cache_control: { type: "ephemeral" as const } }],
      thinking: { type: "enabled" as const, budget_tokens: 1024 },
      tools: [weather],
    };
    const betas = { headers: { "anthropic-beta": "interleaved-thinking-2025-05-14" } };
    calls++;
    const first = await client.messages.create({ ...request, messages: [{ role: "user", content: "Rome" }] }, betas);
    const [thinking, use] = first.content;
    assert.equal(thinking?.type, "thinking", "the model's reasoning reaches the client, first");
    assert.ok(thinking?.type === "thinking" && thinking.signature.length > 20, "with its signature");
    assert.ok(use?.type === "tool_use");
    const sent = lastSent(claude, "/v1/messages");
    assert.deepEqual(sent.body, { ...request, messages: [{ role: "user", content: "Rome" }] }, "the body as written");
    assert.equal(sent.headers["anthropic-beta"], "interleaved-thinking-2025-05-14");
    assert.equal(sent.headers["x-api-key"], "sk-ant-1", "the backend's key, never the client's");
    assert.ok(first.usage.input_tokens > 0 && first.usage.output_tokens > 0);

    // The next turn gives the signed thinking block back, as the API requires with thinking on; streamed.
    const history = [
      { role: "user" as const, content: "Rome" },
      { role: "assistant" as const, content: first.content },
      { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: use.id, content: "rain" }] },
    ];
    calls++;
    const second = await client.messages.stream({ ...request, messages: history }, betas).finalMessage();
    assert.equal(second.content[0]?.type, "thinking");
    assert.ok(second.content[0]?.type === "thinking" && second.content[0].signature.length > 20);
    assert.equal(second.content[1]?.type === "text" && second.content[1].text, "tool result: rain");
    assert.ok(second.usage.output_tokens > 0);
    assert.deepEqual((lastSent(claude, "/v1/messages").body as { messages: unknown }).messages, history);

    // The API's own refusal comes back as the API wrote it: here a turn that dropped its thinking block.
    calls++;
    const dropped = [history[0]!, { role: "assistant" as const, content: [use] }, history[2]!];
    await assert.rejects(client.messages.create({ ...request, messages: dropped }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.BadRequestError);
      assert.match(String(error.message), /Expected `thinking` or `redacted_thinking`/);
      return true;
    });
  });

  it("an anthropic backend's stream is relayed event for event, and its usage is counted", async () => {
    calls++;
    const raw = await http(`${url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({
        model: "claude-haiku-4-5",
        max_tokens: 50,
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    assert.equal(raw.status, 200);
    assert.equal(raw.headers["x-gateway-backend"], "claude");
    assert.ok(!raw.text.includes("[DONE]"), "nothing of OpenAI's is added");
    const events = [...raw.text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    assert.equal(events[0], "message_start");
    assert.equal(events.at(-1), "message_stop");
    assert.deepEqual(
      events,
      sseData(raw.text).map((data) => JSON.parse(data).type),
      "every event named as sent",
    );
    // The tokens the stream reported (message_start's input, message_delta's output) are the request's.
    const counted = (type: string) => async () => {
      const metrics = (await http(`${url}/metrics`)).text;
      const line = metrics
        .split("\n")
        .find(
          (row) =>
            row.startsWith("gateway_tokens_total{") &&
            row.includes('backend="claude"') &&
            row.includes(`type="${type}"`),
        );
      return line !== undefined && Number(line.slice(line.lastIndexOf(" ") + 1)) > 0;
    };
    await waitUntil(counted("prompt"), { timeoutMs: 5_000, what: "prompt tokens of the claude backend" });
    await waitUntil(counted("completion"), { timeoutMs: 5_000, what: "completion tokens of the claude backend" });
  });

  it("Anthropic's own tools and their result blocks go to an anthropic backend as written", async () => {
    const search = { type: "web_search_20250305" as const, name: "web_search" as const, max_uses: 2 };
    calls++;
    const found = await client.messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 512,
      tools: [search],
      messages: [{ role: "user", content: "switchboard" }],
    });
    assert.deepEqual(
      found.content.map((block) => block.type),
      ["server_tool_use", "web_search_tool_result", "text"],
    );
    // The next turn carries the search's blocks back: OpenAI's format has no place for them, the API needs them.
    const history = [
      { role: "user" as const, content: "switchboard" },
      { role: "assistant" as const, content: found.content },
      { role: "user" as const, content: "thanks" },
    ];
    calls++;
    const next = await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 512, messages: history });
    assert.equal(next.content[0]?.type === "text" && next.content[0].text, "echo: thanks");
    assert.deepEqual((lastSent(claude, "/v1/messages").body as { messages: unknown }).messages, history);

    // To a model no anthropic backend serves, such a request cannot go: a 400 that says why.
    calls++;
    const refused = await postJson(`${url}/v1/messages`, {
      model: "llama3",
      max_tokens: 512,
      tools: [search],
      messages: [{ role: "user", content: "switchboard" }],
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.json().error.type, "invalid_request_error");
    assert.match(
      refused.json().error.message,
      /tools\.0: Anthropic's web_search_20250305 tool can only go to a backend/,
    );
  });

  it("thinking never reaches an OpenAI backend", async () => {
    calls++;
    await client.messages.create({
      model: "llama3",
      max_tokens: 2048,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "x" }],
    });
    assert.equal((lastSent(vllm, "/v1/chat/completions").body as Record<string, unknown>)["thinking"], undefined);
  });

  it("count_tokens counts locally; models.list answers in Anthropic's shape", async () => {
    const count = await client.messages.countTokens({
      model: "llama3",
      system: "be brief",
      messages: [{ role: "user", content: "hello there, how are you today?" }],
    });
    assert.ok(count.input_tokens > 5 && count.input_tokens < 40);
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    assert.deepEqual(models.map((model) => model.id).sort(), ["claude-haiku-4-5", "llama3"]);
    assert.equal(models[0]?.type, "model");
    const one = await client.models.retrieve("llama3");
    assert.equal(one.id, "llama3");
  });

  it("count_tokens of a model an anthropic backend serves: Anthropic's own count, the request as written", async () => {
    const request = {
      model: "claude-haiku-4-5",
      system: "be brief",
      messages: [{ role: "user" as const, content: "hello there, how are you today? ".repeat(20) }],
      tools: [weather],
    };
    const beta = { headers: { "anthropic-beta": "token-efficient-tools-2025-02-19" } };
    const { data, response } = await client.messages.countTokens(request, beta).withResponse();
    assert.equal(response.headers.get("x-gateway-backend"), "claude");
    const sent = lastSent(claude, "/v1/messages/count_tokens");
    assert.deepEqual(sent.body, request);
    assert.equal(sent.headers["anthropic-beta"], "token-efficient-tools-2025-02-19");
    assert.equal(sent.headers["x-api-key"], "sk-ant-1", "the backend's key, not the client's");
    const direct = await postJson(`${claude.url}/v1/messages/count_tokens`, request, {
      "x-api-key": "sk-ant-1",
      "anthropic-version": "2023-06-01",
    });
    assert.equal(data.input_tokens, direct.json().input_tokens);
    const local = await client.messages.countTokens({ ...request, model: "llama3" });
    assert.notEqual(local.input_tokens, data.input_tokens, "the local o200k estimate is another count");

    // Anthropic's refusal of the request is the client's to see; its failure leaves the local count.
    const refused = await postJson(
      `${url}/v1/messages/count_tokens`,
      { ...request, max_tokens: 5 },
      {
        "anthropic-version": "2023-06-01",
      },
    );
    assert.equal(refused.status, 400);
    assert.equal(refused.json().error.message, "max_tokens: Extra inputs are not permitted");
    claude.setFault({ kind: "status", status: 529, scope: "inference" });
    try {
      const estimated = await client.messages.countTokens(request).withResponse();
      assert.equal(estimated.response.headers.get("x-gateway-backend"), null);
      assert.ok(estimated.data.input_tokens > 0);
    } finally {
      claude.setFault({ kind: "none" });
    }
  });

  it("errors in Anthropic's envelope: unknown model 404, missing max_tokens 400, no backend 503", async () => {
    calls++;
    await assert.rejects(
      client.messages.create({ model: "nope", max_tokens: 5, messages: [{ role: "user", content: "x" }] }),
      (error: unknown) => {
        assert.ok(error instanceof Anthropic.NotFoundError);
        assert.equal((error.error as { error: { type: string } }).error.type, "not_found_error");
        return true;
      },
    );
    calls++;
    const missing = await postJson(`${url}/v1/messages`, {
      model: "llama3",
      messages: [{ role: "user", content: "x" }],
    });
    assert.equal(missing.status, 400);
    assert.deepEqual(Object.keys(missing.json()), ["type", "error"]);
    assert.equal(missing.json().error.type, "invalid_request_error");
    assert.match(missing.json().error.message, /max_tokens/);
    calls++;
    vllm.setFault({ kind: "status", status: 500, scope: "inference" });
    try {
      await assert.rejects(
        client.messages.create({ model: "llama3", max_tokens: 5, messages: [{ role: "user", content: "x" }] }),
        (error: unknown) => {
          assert.ok(error instanceof Anthropic.APIError);
          assert.equal(error.status, 502);
          assert.equal((error.error as { error: { type: string } }).error.type, "api_error");
          return true;
        },
      );
    } finally {
      vllm.setFault({ kind: "none" });
    }
  });

  it("stats and metrics count every call", async () => {
    await assertCounted(url, calls, "chat");
  });
});

describe("Anthropic Messages to anthropic backends: failover and a broken stream", () => {
  let primary: FakeLlmServer;
  let compatible: FakeLlmServer;
  let url: string;
  const closers = new Closers();
  const ask = (stream = false) =>
    http(`${url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({
        model: "claude-haiku-4-5",
        max_tokens: 50,
        stream,
        messages: [{ role: "user", content: "hi" }],
      }),
    });

  /** Each test starts with the anthropic backend serving (a failure before may have marked it unhealthy). */
  const servedByClaude = () =>
    waitUntil(async () => (await ask()).headers["x-gateway-backend"] === "claude", { what: "claude serving again" });

  before(async () => {
    primary = await startFakeAnthropic({ models: [{ id: "claude-haiku-4-5" }], apiKey: "k", chunks: 3 });
    // An OpenAI-compatible server with the same model name, behind the anthropic backend by priority.
    compatible = await startFakeOpenAI({ models: [{ id: "claude-haiku-4-5" }] });
    const gateway = await startTestGateway(
      FAILOVER_ROUTING +
        backendToml("claude", primary.url, "anthropic", 'api_key_env = "K"\npriority = 10') +
        backendToml("compatible", compatible.url, "vllm", "priority = 90"),
      closers,
      { K: "k" },
    );
    url = gateway.url;
  });
  after(async () => {
    await closers.closeAll();
    await primary.close();
    await compatible.close();
  });

  it("fails over from a failing anthropic backend to an OpenAI one, which answers through the translation", async () => {
    await servedByClaude();
    primary.setFault({ kind: "status", status: 500, scope: "inference" });
    try {
      const answer = await ask();
      assert.equal(answer.status, 200);
      assert.equal(answer.headers["x-gateway-backend"], "compatible");
      assert.equal(answer.json().type, "message");
      assert.equal(answer.json().content[0].text, "echo: hi");
    } finally {
      primary.setFault({ kind: "none" });
    }
  });

  it("a request only an anthropic backend can serve never fails over to an OpenAI one", async () => {
    await servedByClaude();
    const before = compatible.requests.filter((r) => r.path === "/v1/chat/completions").length;
    primary.setFault({ kind: "status", status: 500, scope: "inference" });
    try {
      const answer = await http(`${url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({
          model: "claude-haiku-4-5",
          max_tokens: 50,
          tools: [{ type: "web_search_20250305", name: "web_search" }],
          messages: [{ role: "user", content: "hi" }],
        }),
      });
      assert.equal(answer.status, 502);
      assert.equal(answer.json().type, "error");
      assert.equal(
        compatible.requests.filter((r) => r.path === "/v1/chat/completions").length,
        before,
        "the OpenAI-compatible backend was never asked (its health probes aside)",
      );
    } finally {
      primary.setFault({ kind: "none" });
    }
  });

  it("a native stream that breaks off ends with Anthropic's error event", async () => {
    await servedByClaude();
    primary.setFault({ kind: "die-mid-stream", afterChunks: 3 });
    try {
      const answer = await ask(true);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers["x-gateway-backend"], "claude");
      const last = sseData(answer.text).at(-1)!;
      assert.equal(JSON.parse(last).type, "error");
      assert.match(JSON.parse(last).error.message, /broke off/);
      assert.ok(!answer.text.includes("[DONE]"));
    } finally {
      primary.setFault({ kind: "none" });
    }
  });
});
