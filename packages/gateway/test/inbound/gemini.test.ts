// Google's Gemini API served by the gateway, driven by the official @google/genai SDK (what the Gemini CLI uses),
// against an OpenAI-speaking backend (translated both ways) and against a google backend (passed as written).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FunctionCallingConfigMode, GoogleGenAI } from "@google/genai";
import { type FakeLlmServer, startFakeGoogle, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import { backendToml, Closers, http, postJson, startTestGateway } from "../helpers.ts";
import { assertCounted } from "./counts.ts";

const weather = {
  name: "get_weather",
  description: "Weather for a city",
  parametersJsonSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
};

describe("Gemini's API through the gateway (@google/genai)", () => {
  let vllm: FakeLlmServer;
  let google: FakeLlmServer;
  let client: GoogleGenAI;
  let url: string;
  let calls = 0;
  const closers = new Closers();

  before(async () => {
    vllm = await startFakeOpenAI({
      models: [
        { id: "llama3", capabilities: ["completion", "tools", "vision"] },
        { id: "shared" },
        { id: "embed", capabilities: ["embedding"], embeddingDimensions: 8 },
      ],
      chunks: 3,
    });
    google = await startFakeGoogle({
      models: [{ id: "gemini-2.5-flash", contextLength: 1_048_576 }, { id: "shared" }],
      apiKey: "g-key",
      chunks: 3,
    });
    const gateway = await startTestGateway(
      backendToml("gpu-box", vllm.url, "vllm", "priority = 1") +
        backendToml("gemini", google.url, "google", 'api_key_env = "GEMINI_KEY"\npriority = 2'),
      closers,
      { GEMINI_KEY: "g-key" },
    );
    url = gateway.url;
    client = new GoogleGenAI({ apiKey: "client-key", httpOptions: { baseUrl: gateway.url } });
  });
  after(async () => {
    await closers.closeAll();
    await vllm.close();
    await google.close();
  });

  const lastSent = (server: FakeLlmServer, path: string) => server.requests.findLast((r) => r.path.startsWith(path))!;

  it("generateContent: system, sampling and tools reach an OpenAI backend translated; the answer is Gemini's", async () => {
    calls++;
    const response = await client.models.generateContent({
      model: "llama3",
      contents: "Paris",
      config: {
        systemInstruction: "be brief",
        temperature: 0.3,
        maxOutputTokens: 64,
        stopSequences: ["END"],
        tools: [{ functionDeclarations: [weather] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } },
      },
    });
    const sent = lastSent(vllm, "/v1/chat/completions").body as Record<string, unknown>;
    assert.deepEqual(sent["messages"], [
      { role: "system", content: "be brief" },
      { role: "user", content: [{ type: "text", text: "Paris" }] },
    ]);
    assert.equal(sent["temperature"], 0.3);
    assert.equal(sent["max_tokens"], 64);
    assert.deepEqual(sent["stop"], ["END"]);
    assert.equal(sent["tool_choice"], "auto");
    assert.deepEqual(sent["tools"], [
      {
        type: "function",
        function: { name: "get_weather", parameters: weather.parametersJsonSchema, description: weather.description },
      },
    ]);
    // The simulator calls the first tool offered with the last user message.
    assert.deepEqual(
      response.functionCalls?.map(({ name, args }) => ({ name, args })),
      [{ name: "get_weather", args: { query: "Paris" } }],
    );
    assert.equal(response.candidates?.[0]?.finishReason, "STOP");
    assert.ok((response.usageMetadata?.promptTokenCount ?? 0) > 0);
    assert.equal(response.modelVersion, "llama3");
  });

  it("a function call and its response go back as a tool call and a tool message with one id", async () => {
    calls++;
    const response = await client.models.generateContent({
      model: "llama3",
      contents: [
        { role: "user", parts: [{ text: "weather in Paris?" }] },
        { role: "model", parts: [{ functionCall: { name: "get_weather", args: { query: "Paris" } } }] },
        { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { result: "sunny" } } }] },
      ],
      config: { tools: [{ functionDeclarations: [weather] }] },
    });
    const messages = (lastSent(vllm, "/v1/chat/completions").body as { messages: Record<string, unknown>[] }).messages;
    const call = (messages[1]!["tool_calls"] as Array<{ id: string; function: unknown }>)[0]!;
    assert.deepEqual(call.function, { name: "get_weather", arguments: '{"query":"Paris"}' });
    assert.deepEqual(messages[2], { role: "tool", tool_call_id: call.id, content: '{"result":"sunny"}' });
    assert.equal(response.text, 'tool result: {"result":"sunny"}');
  });

  it("streams text piece by piece with usage at the end; function calls come whole", async () => {
    calls += 2;
    let text = "";
    let last: Awaited<ReturnType<typeof client.models.generateContent>> | undefined;
    for await (const chunk of await client.models.generateContentStream({ model: "llama3", contents: "stream me" })) {
      text += chunk.text ?? "";
      last = chunk;
    }
    assert.equal(text, "echo: stream me");
    assert.equal(last?.candidates?.[0]?.finishReason, "STOP");
    assert.ok((last?.usageMetadata?.candidatesTokenCount ?? 0) > 0);
    const chunks = [];
    for await (const chunk of await client.models.generateContentStream({
      model: "llama3",
      contents: "Lyon",
      config: { tools: [{ functionDeclarations: [weather] }] },
    })) {
      chunks.push(chunk);
    }
    const called = chunks.flatMap((chunk) => chunk.functionCalls ?? []);
    assert.deepEqual(
      called.map(({ name, args }) => ({ name, args })),
      [{ name: "get_weather", args: { query: "Lyon" } }],
    );
  });

  it("a google backend gets the request as written, and its thought signatures come back to it unchanged", async () => {
    calls += 3;
    const first = await client.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "Rome",
      config: {
        tools: [{ functionDeclarations: [weather] }],
        safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT" as never, threshold: "BLOCK_NONE" as never }],
      },
    });
    const sent = lastSent(google, "/v1beta/models/gemini-2.5-flash:generateContent");
    assert.equal(sent.headers["x-goog-api-key"], "g-key", "the backend's key, never the client's");
    assert.ok(Array.isArray((sent.body as Record<string, unknown>)["safetySettings"]), "Google's own fields pass");
    const part = first.candidates?.[0]?.content?.parts?.[0];
    assert.equal(part?.functionCall?.name, "get_weather");
    assert.equal(typeof part?.thoughtSignature, "string");
    const history = [
      { role: "user", parts: [{ text: "Rome" }] },
      { role: "model", parts: [part!] },
      { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { result: "warm" } } }] },
    ];
    const second = await client.models.generateContent({ model: "gemini-2.5-flash", contents: history });
    assert.equal(second.text, 'tool result: {"result":"warm"}');
    // Changed on the way, Google refuses it: the gateway relays the refusal in Gemini's shape.
    const forged = structuredClone(history);
    forged[1]!.parts[0] = { ...part!, thoughtSignature: "Zm9yZ2Vk" };
    await assert.rejects(
      client.models.generateContent({ model: "gemini-2.5-flash", contents: forged }),
      (error: Error & { status?: number }) => error.status === 400 && /Corrupted thought signature/.test(error.message),
    );
  });

  it("streams from a google backend as Google wrote it (alt=sse), its usage counted", async () => {
    calls++;
    let text = "";
    for await (const chunk of await client.models.generateContentStream({
      model: "gemini-2.5-flash",
      contents: "stream me",
    })) {
      text += chunk.text ?? "";
    }
    assert.equal(text, "echo: stream me");
    assert.match(lastSent(google, "/v1beta/models/gemini-2.5-flash:streamGenerateContent").query, /alt=sse/);
    // Read from the answer on its way (the usage tap): the backend's tokens, and its spend.
    await waitUntil(async () =>
      /gateway_tokens_total\{[^}]*backend="gemini"[^}]*type="completion"[^}]*\} [1-9]/.test(
        (await http(`${url}/metrics`)).text,
      ),
    );
  });

  it("Google's own tools go only to google backends: 400 untranslatable_request for a model without one", async () => {
    calls += 2;
    const request = { contents: [{ role: "user", parts: [{ text: "news?" }] }], tools: [{ googleSearch: {} }] };
    const refused = await postJson(`${url}/v1beta/models/llama3:generateContent`, request);
    assert.equal(refused.status, 400);
    assert.equal(refused.json().error.status, "INVALID_ARGUMENT");
    assert.match(
      refused.json().error.message,
      /Google's googleSearch tool can only go to a backend that speaks gemini-generate/,
    );
    // "shared" is served by both: the OpenAI backend comes first, but cannot carry the tool.
    const served = await postJson(`${url}/v1beta/models/shared:generateContent`, request);
    assert.equal(served.status, 200, served.text);
    assert.equal(served.headers["x-gateway-backend"], "gemini");
  });

  it("countTokens: Google's own count where a google backend serves the model, the local estimate elsewhere", async () => {
    const asked = await client.models.countTokens({ model: "gemini-2.5-flash", contents: "count these words" });
    // The simulator's own count: twice the characters, plus one per content.
    assert.equal(asked.totalTokens, "count these words".length * 2 + 1);
    const local = await client.models.countTokens({ model: "llama3", contents: "count these words" });
    assert.ok((local.totalTokens ?? 0) > 0 && (local.totalTokens ?? 0) < 20);
  });

  it("embedContent and batchEmbedContents run as embeddings requests, one input per content", async () => {
    calls += 2;
    const batch = await client.models.embedContent({ model: "embed", contents: ["one", "two"] });
    assert.equal(batch.embeddings?.length, 2);
    assert.equal(batch.embeddings?.[0]?.values?.length, 8);
    assert.deepEqual((lastSent(vllm, "/v1/embeddings").body as { input: unknown }).input, ["one", "two"]);
    const single = await postJson(`${url}/v1beta/models/embed:embedContent`, { content: { parts: [{ text: "one" }] } });
    assert.equal(single.status, 200, single.text);
    assert.deepEqual(single.json().embedding.values, batch.embeddings?.[0]?.values);
    const mixed = await postJson(`${url}/v1beta/models/embed:batchEmbedContents`, {
      requests: [
        { content: { parts: [{ text: "a" }] }, outputDimensionality: 4 },
        { content: { parts: [{ text: "b" }] }, outputDimensionality: 6 },
      ],
    });
    assert.equal(mixed.status, 400);
    assert.match(mixed.json().error.message, /same size/);
    calls++;
  });

  it("lists the fleet's models in Gemini's shape, and answers unknown models and bad bodies in its envelope", async () => {
    const listed = [];
    for await (const model of await client.models.list()) listed.push(model.name);
    assert.deepEqual(listed.sort(), ["models/embed", "models/gemini-2.5-flash", "models/llama3", "models/shared"]);
    calls += 2;
    await assert.rejects(
      client.models.generateContent({ model: "nope", contents: "x" }),
      (error: Error & { status?: number }) => error.status === 404 && /nope/.test(error.message),
    );
    const bad = await postJson(`${url}/v1beta/models/llama3:generateContent`, { contents: [] });
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.json().error).sort(), ["code", "message", "status"]);
    const raw = await http(`${url}/v1beta/models/llama3:streamGenerateContent?alt=sse`, {
      method: "POST",
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    });
    assert.equal(raw.status, 200);
    assert.match(String(raw.headers["content-type"]), /text\/event-stream/);
    calls++;
    // Google's own framing: CRLF line ends.
    const events = raw.text
      .split("\r\n\r\n")
      .filter((event) => event !== "")
      .map((event) => JSON.parse(event.replace(/^data: /, "")));
    assert.equal(events.at(-1).candidates[0].finishReason, "STOP");
    await assertCounted(url, calls);
  });
});

describe("Gemini's API with keys", () => {
  let vllm: FakeLlmServer;
  let url: string;
  const closers = new Closers();

  before(async () => {
    vllm = await startFakeOpenAI({ models: [{ id: "llama3" }, { id: "other" }] });
    url = (
      await startTestGateway(`${backendToml("box", vllm.url, "vllm")}[auth]\nmaster_key_env = "MASTER"\n`, closers, {
        MASTER: "master-key-for-tests-0123456789",
      })
    ).url;
  });
  after(async () => {
    await closers.closeAll();
    await vllm.close();
  });

  it("takes the key in x-goog-api-key, and refuses a wrong one in Gemini's envelope", async () => {
    const good = new GoogleGenAI({ apiKey: "master-key-for-tests-0123456789", httpOptions: { baseUrl: url } });
    assert.equal((await good.models.generateContent({ model: "llama3", contents: "hi" })).text, "echo: hi");
    const wrong = new GoogleGenAI({ apiKey: "wrong", httpOptions: { baseUrl: url } });
    await assert.rejects(
      wrong.models.generateContent({ model: "llama3", contents: "hi" }),
      (error: Error & { status?: number }) => error.status === 401 && /UNAUTHENTICATED|API key/.test(error.message),
    );
  });

  it("a virtual key's model list applies to the model named in the path", async () => {
    const made = await postJson(
      `${url}/v1/keys`,
      { name: "gemini-user", models: ["llama3"] },
      { authorization: "Bearer master-key-for-tests-0123456789" },
    );
    assert.equal(made.status, 201, made.text);
    const client = new GoogleGenAI({ apiKey: made.json().key, httpOptions: { baseUrl: url } });
    assert.equal((await client.models.generateContent({ model: "llama3", contents: "hi" })).text, "echo: hi");
    await assert.rejects(
      client.models.generateContent({ model: "other", contents: "hi" }),
      (error: Error & { status?: number }) => error.status === 403 && /PERMISSION_DENIED/.test(error.message),
    );
    const listed = [];
    for await (const model of await client.models.list()) listed.push(model.name);
    assert.deepEqual(listed, ["models/llama3"]);
  });
});
