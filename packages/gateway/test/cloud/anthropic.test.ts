// An anthropic backend behind the gateway, driven by the official openai SDK: the client speaks OpenAI, the
// simulator speaks Anthropic's Messages API, the gateway translates both ways.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeAnthropic } from "@switchboard/testkit";
import OpenAI from "openai";
import { backendToml, Closers, postJson, startTestGateway } from "../helpers.ts";

const KEY = "sk-ant-secret-123";
const weatherTool = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
};

describe("anthropic backend through the openai SDK", () => {
  let claude: FakeLlmServer;
  let spare: FakeLlmServer;
  let client: OpenAI;
  let url: string;
  const closers = new Closers();

  before(async () => {
    claude = await startFakeAnthropic({
      models: [{ id: "claude-haiku-4-5" }],
      apiKey: KEY,
      chunks: 3,
      cachedPromptTokens: 5,
    });
    spare = await startFakeAnthropic({ models: [{ id: "claude-haiku-4-5" }], apiKey: KEY });
    const gateway = await startTestGateway(
      backendToml("claude", claude.url, "anthropic", 'api_key_env = "ANTHROPIC_KEY"\npriority = 1') +
        backendToml("claude-spare", spare.url, "anthropic", 'api_key_env = "ANTHROPIC_KEY"\npriority = 90'),
      closers,
      { ANTHROPIC_KEY: KEY },
    );
    url = gateway.url;
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "client-secret", maxRetries: 0 });
  });
  after(async () => {
    await closers.closeAll();
    await claude.close();
    await spare.close();
  });

  it("non-streaming text: translated request, OpenAI answer, cost header, the key only in x-api-key", async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: "claude-haiku-4-5",
        messages: [
          { role: "system", content: "be brief" },
          { role: "user", content: [{ type: "text", text: "ping" }] },
        ],
        temperature: 1.5,
        stop: "END",
        user: "u-1",
      })
      .withResponse();
    assert.equal(data.object, "chat.completion");
    assert.match(data.id, /^msg_/);
    assert.equal(data.choices[0]?.message.content, "echo: ping");
    assert.equal(data.choices[0]?.finish_reason, "stop");
    assert.equal(data.usage?.prompt_tokens_details?.cached_tokens, 5);
    assert.equal(data.usage?.total_tokens, (data.usage?.prompt_tokens ?? 0) + (data.usage?.completion_tokens ?? 0));
    assert.equal(response.headers.get("x-gateway-backend"), "claude");
    assert.equal(response.headers.get("x-gateway-backend-type"), "cloud");
    assert.ok(Number(response.headers.get("x-gateway-cost-estimated")) > 0, "cost header for a priced cloud model");
    const sent = claude.requests.findLast((request) => request.path === "/v1/messages")!;
    assert.equal(sent.headers["x-api-key"], KEY);
    assert.equal(sent.headers["anthropic-version"], "2023-06-01");
    assert.equal(sent.headers["authorization"], undefined, "the client's Authorization never reaches a backend");
    assert.deepEqual(sent.body, {
      model: "claude-haiku-4-5",
      max_tokens: 4096,
      system: "be brief",
      messages: [{ role: "user", content: [{ type: "text", text: "ping" }] }],
      temperature: 1,
      stop_sequences: ["END"],
      metadata: { user_id: "u-1" },
    });
  });

  it("streaming text with include_usage: chunks, finish, then the usage chunk", async () => {
    const stream = await client.chat.completions.create({
      model: "claude-haiku-4-5",
      messages: [{ role: "user", content: "stream me" }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 50,
    });
    let text = "";
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | undefined;
    let role: string | undefined;
    for await (const chunk of stream) {
      assert.equal(chunk.object, "chat.completion.chunk");
      role ??= chunk.choices[0]?.delta.role;
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(role, "assistant");
    assert.equal(text, "echo: stream me");
    assert.equal(finish, "stop");
    assert.ok(usage && usage.completion_tokens > 0 && usage.prompt_tokens > 5);
    assert.equal(usage?.prompt_tokens_details?.cached_tokens, 5);
  });

  it("a full tool-use round trip, non-streaming then streaming", async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "weather in Paris" }];
    const first = await client.chat.completions.create({ model: "claude-haiku-4-5", messages, tools: [weatherTool] });
    assert.equal(first.choices[0]?.finish_reason, "tool_calls");
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    assert.equal(call.function.name, "get_weather");
    assert.deepEqual(JSON.parse(call.function.arguments), { query: "weather in Paris" });
    const sentTools = (claude.requests.at(-1)!.body as { tools: unknown[] }).tools;
    assert.deepEqual(sentTools, [
      { name: "get_weather", description: "Weather for a city", input_schema: weatherTool.function.parameters },
    ]);

    const second = await client.chat.completions.create({
      model: "claude-haiku-4-5",
      tools: [weatherTool],
      messages: [...messages, first.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: "sunny" }],
    });
    assert.equal(second.choices[0]?.message.content, "tool result: sunny");
    const replayed = (claude.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown[] }> })
      .messages;
    assert.deepEqual(replayed[1]?.content, [
      { type: "tool_use", id: call.id, name: "get_weather", input: { query: "weather in Paris" } },
    ]);
    assert.deepEqual(replayed[2]?.content, [{ type: "tool_result", tool_use_id: call.id, content: "sunny" }]);

    // Streaming: the call's id and name first, then its arguments in pieces, then finish_reason tool_calls.
    const stream = await client.chat.completions.create({
      model: "claude-haiku-4-5",
      messages,
      tools: [weatherTool],
      stream: true,
    });
    let id = "";
    let args = "";
    let pieces = 0;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        id ||= delta.id ?? "";
        if (delta.function?.arguments) {
          args += delta.function.arguments;
          pieces++;
        }
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.match(id, /^toolu_/);
    assert.ok(pieces > 1, "arguments arrive in several chunks");
    assert.deepEqual(JSON.parse(args), { query: "weather in Paris" });
    assert.equal(finish, "tool_calls");
  });

  it("errors: refused fields answer 400 without a call; Anthropic's 400 arrives in OpenAI's envelope", async () => {
    const before = claude.requests.length;
    const refused = await postJson(`${url}/v1/chat/completions`, {
      model: "claude-haiku-4-5",
      messages: [{ role: "user", content: "x" }],
      n: 2,
    });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json().error, {
      message: "n is not supported by anthropic backends",
      type: "invalid_request_error",
      param: "n",
      code: "unsupported_parameter",
    });
    assert.equal(claude.requests.length, before, "the provider was not called");
    await assert.rejects(
      client.chat.completions.create({
        model: "claude-haiku-4-5",
        messages: [
          { role: "user", content: "x" },
          { role: "tool", tool_call_id: "toolu_unknown", content: "r" },
        ],
      }),
      (error: InstanceType<typeof OpenAI.BadRequestError>) =>
        error.status === 400 && error.type === "invalid_request_error" && /tool_use_id/.test(error.message),
    );
  });

  it("a body of a megabyte is translated off the event loop, byte for byte, streamed or not; refusals still 400", async () => {
    // Escapes, non-ASCII and an astral character, and an inline image: past the size translated on the thread,
    // within Claude's context.
    const prompt = `line "one"\\ ünïcode 🚀\n\ttab ${"words and more words ".repeat(40)}`.repeat(150);
    const system = "be brief. ".repeat(5_000);
    const image = Buffer.alloc(600_000, 7).toString("base64");
    const messages = [
      { role: "system" as const, content: system },
      {
        role: "user" as const,
        content: [
          { type: "text" as const, text: prompt },
          { type: "image_url" as const, image_url: { url: `data:image/png;base64,${image}` } },
        ],
      },
    ];
    const translated = {
      model: "claude-haiku-4-5",
      max_tokens: 4096,
      system,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: prompt },
            { type: "image", source: { type: "base64", media_type: "image/png", data: image } },
          ],
        },
      ],
    };
    const lastSent = () => claude.requests.findLast((request) => request.path === "/v1/messages")?.body;
    const answer = await client.chat.completions.create({ model: "claude-haiku-4-5", messages });
    assert.ok(answer.choices[0]?.message.content?.startsWith('echo: line "one"'));
    assert.deepEqual(lastSent(), translated);

    const stream = await client.chat.completions.create({
      model: "claude-haiku-4-5",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
      assert.equal(chunk.model, "claude-haiku-4-5");
    }
    assert.ok(text.startsWith('echo: line "one"'));
    assert.ok(usage && usage.prompt_tokens > 0, "include_usage reached the translated stream");
    assert.deepEqual(lastSent(), { ...translated, stream: true });

    const before = claude.requests.length;
    const refused = await postJson(`${url}/v1/chat/completions`, { model: "claude-haiku-4-5", messages, n: 3 });
    assert.equal(refused.status, 400);
    assert.equal(refused.json().error.param, "n");
    assert.equal(claude.requests.length, before, "the provider was not called");
  });

  it("529 overloaded and 429 fail over like a 5xx; when all fail the client gets OpenAI's envelope", async () => {
    claude.setFault({ kind: "status", status: 529, scope: "inference" });
    const { data, response } = await client.chat.completions
      .create({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "x" }] })
      .withResponse();
    assert.equal(data.choices[0]?.message.content, "echo: x");
    assert.equal(response.headers.get("x-gateway-backend"), "claude-spare");
    assert.equal(response.headers.get("x-gateway-route-reason"), "failover");
    claude.setFault({ kind: "status", status: 429, scope: "inference" });
    spare.setFault({ kind: "status", status: 429, scope: "inference" });
    await assert.rejects(
      client.chat.completions.create({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "x" }] }),
      (error: InstanceType<typeof OpenAI.RateLimitError>) => error.status === 429 && error.code === "rate_limit_error",
    );
    claude.setFault({ kind: "none" });
    spare.setFault({ kind: "none" });
  });

  it("an error event mid-stream ends the stream with an error the SDK raises", async () => {
    claude.setFault({ kind: "stream-error", afterChunks: 4 });
    spare.setFault({ kind: "stream-error", afterChunks: 4 });
    const stream = await client.chat.completions.create({
      model: "claude-haiku-4-5",
      messages: [{ role: "user", content: "long answer please" }],
      stream: true,
    });
    let text = "";
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      })(),
      (error: Error) => /overloaded_error/.test(error.message),
    );
    assert.ok(text.length > 0, "content before the error was delivered");
    claude.setFault({ kind: "none" });
    spare.setFault({ kind: "none" });
  });
});
