// The Anthropic and Google simulators checked with the providers' official SDKs, so the gateway's translation is
// tested against the wire format those clients accept.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { type FakeLlmServer, startFakeAnthropic, startFakeGoogle } from "@switchboard/testkit";

describe("the Anthropic simulator through @anthropic-ai/sdk", () => {
  let fake: FakeLlmServer;
  let client: Anthropic;
  before(async () => {
    fake = await startFakeAnthropic({
      models: [{ id: "claude-haiku-4-5" }],
      apiKey: "sk-ant-test",
      cachedPromptTokens: 7,
    });
    client = new Anthropic({ baseURL: fake.url, apiKey: "sk-ant-test", maxRetries: 0 });
  });
  after(() => fake.close());

  it("lists models and answers a message with usage", async () => {
    const models = await client.models.list();
    assert.deepEqual(
      models.data.map((model) => model.id),
      ["claude-haiku-4-5"],
    );
    const message = await client.messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 100,
      system: "be brief",
      messages: [{ role: "user", content: "hello" }],
    });
    assert.equal(message.content[0]?.type, "text");
    assert.equal((message.content[0] as { text: string }).text, "echo: hello");
    assert.equal(message.stop_reason, "end_turn");
    assert.equal(message.usage.cache_read_input_tokens, 7);
    assert.equal(fake.requests.at(-1)?.headers["anthropic-version"] !== undefined, true);
  });

  it("streams text and tool use the SDK reassembles", async () => {
    const stream = client.messages.stream({
      model: "claude-haiku-4-5",
      max_tokens: 100,
      messages: [{ role: "user", content: "weather in Paris" }],
      tools: [{ name: "get_weather", input_schema: { type: "object", properties: { query: { type: "string" } } } }],
    });
    const final = await stream.finalMessage();
    assert.equal(final.stop_reason, "tool_use");
    const use = final.content.find((block) => block.type === "tool_use");
    assert.deepEqual((use as { input: unknown }).input, { query: "weather in Paris" });
    const text = await client.messages
      .stream({ model: "claude-haiku-4-5", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
      .finalText();
    assert.equal(text, "echo: hi");
  });

  it("errors: 529 overloaded_error, 401, and validation are the SDK's typed errors", async () => {
    fake.setFault({ kind: "status", status: 529 });
    await assert.rejects(
      client.messages.create({ model: "claude-haiku-4-5", max_tokens: 5, messages: [{ role: "user", content: "x" }] }),
      (error: InstanceType<typeof Anthropic.APIError>) =>
        error.status === 529 && /overloaded_error/.test(error.message),
    );
    fake.setFault({ kind: "none" });
    const wrongKey = new Anthropic({ baseURL: fake.url, apiKey: "wrong", maxRetries: 0 });
    await assert.rejects(
      wrongKey.messages.create({
        model: "claude-haiku-4-5",
        max_tokens: 5,
        messages: [{ role: "user", content: "x" }],
      }),
      Anthropic.AuthenticationError,
    );
    await assert.rejects(
      client.messages.create({
        model: "claude-haiku-4-5",
        max_tokens: 5,
        messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "r" }] }],
      }),
      (error: InstanceType<typeof Anthropic.BadRequestError>) =>
        error.status === 400 && /tool_use_id/.test(error.message),
    );
  });
});

describe("the Google simulator through @google/genai", () => {
  let fake: FakeLlmServer;
  let client: GoogleGenAI;
  before(async () => {
    fake = await startFakeGoogle({ models: [{ id: "gemini-2.5-flash", contextLength: 1_048_576 }], apiKey: "g-key" });
    client = new GoogleGenAI({ apiKey: "g-key", httpOptions: { baseUrl: fake.url } });
  });
  after(() => fake.close());

  it("generates content with usage, the key in x-goog-api-key", async () => {
    const response = await client.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "hello",
      config: { systemInstruction: "be brief", temperature: 0.3 },
    });
    assert.equal(response.text, "echo: hello");
    assert.equal(response.candidates?.[0]?.finishReason, "STOP");
    assert.ok((response.usageMetadata?.promptTokenCount ?? 0) > 0);
    const sent = fake.requests.at(-1)!;
    assert.equal(sent.headers["x-goog-api-key"], "g-key");
    assert.doesNotMatch(sent.query, /key=/);
  });

  it("streams text and returns function calls", async () => {
    let text = "";
    for await (const chunk of await client.models.generateContentStream({
      model: "gemini-2.5-flash",
      contents: "stream me",
    })) {
      text += chunk.text ?? "";
    }
    assert.equal(text, "echo: stream me");
    assert.match(fake.requests.at(-1)!.query, /alt=sse/);
    const called = await client.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "weather",
      config: {
        tools: [{ functionDeclarations: [{ name: "get_weather", parametersJsonSchema: { type: "object" } }] }],
      },
    });
    assert.deepEqual(called.functionCalls?.[0], { name: "get_weather", args: { query: "weather" } });
  });

  it("errors keep Google's shape (429 RESOURCE_EXHAUSTED)", async () => {
    fake.setFault({ kind: "status", status: 429 });
    await assert.rejects(
      client.models.generateContent({ model: "gemini-2.5-flash", contents: "x" }),
      (error: Error & { status?: number }) => error.status === 429 && /RESOURCE_EXHAUSTED/.test(error.message),
    );
    fake.setFault({ kind: "none" });
  });
});
