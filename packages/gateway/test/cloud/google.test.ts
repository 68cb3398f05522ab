// A google backend behind the gateway, driven by the official openai SDK against the Gemini simulator.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeGoogle } from "@switchboard/testkit";
import OpenAI from "openai";
import { backendToml, Closers, startTestGateway } from "../helpers.ts";

const KEY = "AIza-google-secret";
const weatherTool = {
  type: "function" as const,
  function: { name: "get_weather", parameters: { type: "object", properties: { query: { type: "string" } } } },
};

describe("google backend through the openai SDK", () => {
  let gemini: FakeLlmServer;
  let client: OpenAI;
  const closers = new Closers();

  before(async () => {
    gemini = await startFakeGoogle({
      models: [
        { id: "gemini-2.5-flash", contextLength: 1_048_576 },
        { id: "text-embedding-004", capabilities: ["embedding"] },
      ],
      apiKey: KEY,
      chunks: 3,
      cachedPromptTokens: 4,
    });
    const gateway = await startTestGateway(
      backendToml("gemini", gemini.url, "google", 'api_key_env = "GEMINI_KEY"'),
      closers,
      { GEMINI_KEY: KEY },
    );
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "client-secret", maxRetries: 0 });
  });
  after(async () => {
    await closers.closeAll();
    await gemini.close();
  });

  it("lists generateContent and embedding models; the key in x-goog-api-key, never in the URL", async () => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.deepEqual(ids, ["gemini-2.5-flash", "text-embedding-004"]);
    for (const request of gemini.requests) {
      assert.equal(request.headers["x-goog-api-key"], KEY);
      assert.doesNotMatch(request.query, /key=/);
      assert.equal(request.headers["authorization"], undefined);
    }
  });

  it("embeddings through batchEmbedContents: one request per input, dimensions, float and base64", async () => {
    const list = await client.embeddings.create({ model: "text-embedding-004", input: ["a", "bb"], dimensions: 4 });
    assert.equal(list.data.length, 2);
    assert.equal(list.data[1]?.index, 1);
    assert.equal(list.data[0]?.embedding.length, 4);
    assert.ok(list.usage.prompt_tokens > 0);
    const sent = gemini.requests.findLast((request) => request.path.endsWith(":batchEmbedContents"))!;
    assert.equal(sent.path, "/v1beta/models/text-embedding-004:batchEmbedContents");
    assert.deepEqual(sent.body, {
      requests: [
        { model: "models/text-embedding-004", content: { parts: [{ text: "a" }] }, outputDimensionality: 4 },
        { model: "models/text-embedding-004", content: { parts: [{ text: "bb" }] }, outputDimensionality: 4 },
      ],
    });
    const encoded = await client.embeddings.create({
      model: "text-embedding-004",
      input: "a",
      encoding_format: "base64",
    });
    const bytes = Buffer.from(encoded.data[0]?.embedding as unknown as string, "base64");
    assert.equal(bytes.length, 16 * 4, "16 little-endian float32s");
  });

  it("non-streaming text: roles, systemInstruction, generationConfig; usage with cached tokens", async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: "gemini-2.5-flash",
        messages: [
          { role: "system", content: "be brief" },
          { role: "user", content: "first" },
          { role: "assistant", content: "echo: first" },
          { role: "user", content: "ping" },
        ],
        temperature: 1.2,
        max_tokens: 64,
        stop: ["END"],
        seed: 3,
      })
      .withResponse();
    assert.equal(data.choices[0]?.message.content, "echo: ping");
    assert.equal(data.choices[0]?.finish_reason, "stop");
    assert.equal(data.usage?.prompt_tokens_details?.cached_tokens, 4);
    assert.ok(Number(response.headers.get("x-gateway-cost-estimated")) > 0);
    const sent = gemini.requests.at(-1)!;
    assert.equal(sent.path, "/v1beta/models/gemini-2.5-flash:generateContent");
    assert.deepEqual(sent.body, {
      contents: [
        { role: "user", parts: [{ text: "first" }] },
        { role: "model", parts: [{ text: "echo: first" }] },
        { role: "user", parts: [{ text: "ping" }] },
      ],
      systemInstruction: { parts: [{ text: "be brief" }] },
      generationConfig: { temperature: 1.2, maxOutputTokens: 64, seed: 3, stopSequences: ["END"] },
    });
  });

  it("streaming with include_usage over Google's CRLF SSE, ending with [DONE]", async () => {
    const stream = await client.chat.completions.create({
      model: "gemini-2.5-flash",
      messages: [{ role: "user", content: "stream me" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, "echo: stream me");
    assert.equal(finish, "stop");
    assert.ok(usage && usage.completion_tokens > 0);
    assert.match(gemini.requests.at(-1)!.path, /:streamGenerateContent$/);
    assert.equal(gemini.requests.at(-1)!.query, "?alt=sse");
  });

  it("function calling both ways, streamed and not", async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "weather in Rome" }];
    const first = await client.chat.completions.create({
      model: "gemini-2.5-flash",
      messages,
      tools: [weatherTool],
      tool_choice: "required",
    });
    assert.equal(first.choices[0]?.finish_reason, "tool_calls");
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    assert.deepEqual(JSON.parse(call.function.arguments), { query: "weather in Rome" });
    const sent = gemini.requests.at(-1)!.body as Record<string, unknown>;
    assert.deepEqual(sent["tools"], [
      { functionDeclarations: [{ name: "get_weather", parametersJsonSchema: weatherTool.function.parameters }] },
    ]);
    assert.deepEqual(sent["toolConfig"], { functionCallingConfig: { mode: "ANY" } });

    const second = await client.chat.completions.create({
      model: "gemini-2.5-flash",
      tools: [weatherTool],
      messages: [
        ...messages,
        first.choices[0]!.message,
        { role: "tool", tool_call_id: call.id, content: '{"sky":"clear"}' },
      ],
    });
    assert.equal(second.choices[0]?.message.content, 'tool result: {"sky":"clear"}');
    const contents = (gemini.requests.at(-1)!.body as { contents: unknown[] }).contents;
    assert.deepEqual(contents[1], {
      role: "model",
      parts: [{ functionCall: { name: "get_weather", args: { query: "weather in Rome" } } }],
    });
    assert.deepEqual(contents[2], {
      role: "user",
      parts: [{ functionResponse: { name: "get_weather", response: { sky: "clear" } } }],
    });

    const stream = await client.chat.completions.create({
      model: "gemini-2.5-flash",
      messages,
      tools: [weatherTool],
      stream: true,
    });
    let args = "";
    let name = "";
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        name ||= delta.function?.name ?? "";
        args += delta.function?.arguments ?? "";
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(name, "get_weather");
    assert.deepEqual(JSON.parse(args), { query: "weather in Rome" });
    assert.equal(finish, "tool_calls");
  });

  it("errors: 429 RESOURCE_EXHAUSTED in OpenAI's envelope; an invalid key is a 502 that never shows the key", async () => {
    gemini.setFault({ kind: "status", status: 429, scope: "inference" });
    await assert.rejects(
      client.chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "x" }] }),
      (error: InstanceType<typeof OpenAI.RateLimitError>) =>
        error.status === 429 && error.code === "RESOURCE_EXHAUSTED" && error.type === "rate_limit_error",
    );
    gemini.setFault({
      kind: "status",
      status: 400,
      scope: "inference",
      body: {
        error: {
          code: 400,
          message: `API key not valid: ${KEY}`,
          status: "INVALID_ARGUMENT",
          details: [{ reason: "API_KEY_INVALID" }],
        },
      },
    });
    await assert.rejects(
      client.chat.completions.create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "x" }] }),
      (error: InstanceType<typeof OpenAI.APIError>) =>
        error.status === 502 && !JSON.stringify(error.error).includes(KEY) && !error.message.includes(KEY),
    );
    gemini.setFault({ kind: "none" });
  });
});
