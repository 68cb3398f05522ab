// Ollama's native API served by the gateway, driven by the official ollama JS client, against an OpenAI-speaking
// backend and an anthropic backend (translated both ways): listings, chat, streams, generate, embeddings, tools, errors;
// and against an ollama backend, which gets the requests as written and answers as is.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type FakeLlmServer,
  startFakeAnthropic,
  startFakeOllama,
  startFakeOpenAI,
  waitUntil,
} from "@switchboard/testkit";
import { Ollama } from "ollama";
import { backendToml, Closers, FAILOVER_ROUTING, http, postJson, startTestGateway } from "../helpers.ts";
import { assertCounted } from "./counts.ts";

const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
  },
};

describe("Ollama's native API through the gateway (ollama JS client)", () => {
  let vllm: FakeLlmServer;
  let claude: FakeLlmServer;
  let client: Ollama;
  let url: string;
  let calls = 0;
  const closers = new Closers();

  before(async () => {
    vllm = await startFakeOpenAI({
      models: [
        { id: "llama3", contextLength: 8192, capabilities: ["completion", "tools", "vision", "json"] },
        { id: "nomic-embed-text", capabilities: ["embedding"], embeddingDimensions: 8 },
      ],
      chunks: 4,
    });
    claude = await startFakeAnthropic({ models: [{ id: "claude-haiku-4-5" }], apiKey: "k" });
    const gateway = await startTestGateway(
      backendToml("gpu-box", vllm.url, "vllm") + backendToml("claude", claude.url, "anthropic", 'api_key_env = "K"'),
      closers,
      { K: "k" },
    );
    url = gateway.url;
    client = new Ollama({ host: gateway.url });
  });
  after(async () => {
    await closers.closeAll();
    await vllm.close();
    await claude.close();
  });

  const lastChat = () =>
    vllm.requests.findLast((r) => r.path === "/v1/chat/completions")!.body as Record<string, unknown>;

  it("list, show, ps and version from the fleet", async () => {
    const list = await client.list();
    assert.deepEqual(
      list.models.map((model) => model.name),
      ["claude-haiku-4-5", "llama3", "nomic-embed-text"],
    );
    const shown = await client.show({ model: "claude-haiku-4-5" });
    assert.deepEqual(shown.capabilities, ["completion", "tools", "vision"]);
    assert.equal((shown.model_info as unknown as Record<string, unknown>)["gateway.context_length"], 200_000);
    const ps = await client.ps();
    assert.equal(ps.models.length, 3, "models of backends without a lifecycle are always loaded");
    assert.match((await client.version()).version, /^\d+\.\d+\.\d+$/);
  });

  it("chat without streaming: options mapped, the answer in Ollama's shape with counts", async () => {
    calls++;
    const answer = await client.chat({
      model: "llama3",
      stream: false,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "ping" },
      ],
      options: { temperature: 0.2, top_p: 0.9, num_predict: 64, stop: ["END"], seed: 7 },
    });
    assert.equal(answer.message.content, "echo: ping");
    assert.equal(answer.done, true);
    assert.equal(answer.done_reason, "stop");
    assert.ok(answer.eval_count > 0 && answer.prompt_eval_count > 0);
    const sent = lastChat();
    assert.deepEqual(sent["messages"], [
      { role: "system", content: "be brief" },
      { role: "user", content: "ping" },
    ]);
    assert.equal(sent["temperature"], 0.2);
    assert.equal(sent["top_p"], 0.9);
    assert.equal(sent["max_tokens"], 64);
    assert.deepEqual(sent["stop"], ["END"]);
    assert.equal(sent["seed"], 7);
  });

  it("chat streams NDJSON by default: pieces, then the done object", async () => {
    calls++;
    const parts: string[] = [];
    let final: { done: boolean; eval_count: number } | undefined;
    for await (const part of await client.chat({
      model: "llama3",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    })) {
      if (part.done) final = part;
      else parts.push(part.message.content);
    }
    assert.equal(parts.join(""), "echo: hi");
    assert.equal(parts.length, 4);
    assert.ok(final && final.eval_count > 0);
    calls++;
    const raw = await postJson(`${url}/api/chat`, { model: "llama3", messages: [{ role: "user", content: "hi" }] });
    assert.equal(raw.headers["content-type"], "application/x-ndjson");
    assert.equal(raw.headers["x-gateway-backend"], "gpu-box");
    const lines = raw.text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(lines.at(-1).done, true);
    assert.ok(lines.slice(0, -1).every((line) => line.done === false && line.model === "llama3"));
  });

  it("tools: a call with arguments as an object, then the result answered in order", async () => {
    calls++;
    const first = await client.chat({
      model: "llama3",
      stream: false,
      tools: [weatherTool],
      messages: [{ role: "user", content: "Paris" }],
    });
    const call = first.message.tool_calls?.[0];
    assert.equal(call?.function.name, "get_weather");
    assert.deepEqual(call?.function.arguments, { query: "Paris" });
    calls++;
    const streamed = [];
    for await (const part of await client.chat({
      model: "llama3",
      stream: true,
      tools: [weatherTool],
      messages: [{ role: "user", content: "Oslo" }],
    })) {
      streamed.push(...(part.message.tool_calls ?? []));
    }
    assert.deepEqual(
      streamed.map((c) => c.function.arguments),
      [{ query: "Oslo" }],
      "streamed calls come whole",
    );
    calls++;
    const second = await client.chat({
      model: "llama3",
      stream: false,
      tools: [weatherTool],
      messages: [
        { role: "user", content: "Paris" },
        first.message,
        { role: "tool", content: "sunny", tool_name: "get_weather" },
      ],
    });
    assert.equal(second.message.content, "tool result: sunny");
    const sent = lastChat()["messages"] as Array<Record<string, unknown>>;
    assert.deepEqual(
      sent.map((message) => message["role"]),
      ["user", "assistant", "tool"],
    );
    const id = (sent[1]!["tool_calls"] as Array<{ id: string; function: { arguments: string } }>)[0]!;
    assert.equal(sent[2]!["tool_call_id"], id.id, "the tool result answers the call it names");
    assert.equal(id.function.arguments, '{"query":"Paris"}');
  });

  it("generate (streamed and not), format json, and the model-loading empty prompt", async () => {
    calls++;
    const whole = await client.generate({
      model: "llama3",
      prompt: "ping",
      system: "sys",
      format: "json",
      stream: false,
    });
    assert.equal(whole.response, "echo: ping");
    const sent = lastChat();
    assert.deepEqual(sent["response_format"], { type: "json_object" });
    assert.deepEqual(sent["messages"], [
      { role: "system", content: "sys" },
      { role: "user", content: "ping" },
    ]);
    calls++;
    let text = "";
    for await (const part of await client.generate({ model: "llama3", prompt: "pong", stream: true }))
      text += part.response;
    assert.equal(text, "echo: pong");
    const load = await client.generate({ model: "llama3", prompt: "" });
    assert.equal(load.done_reason, "load");
  });

  it("an anthropic backend behind Ollama's API", async () => {
    calls++;
    const answer = await client.chat({
      model: "claude-haiku-4-5",
      stream: false,
      messages: [{ role: "user", content: "yo" }],
    });
    assert.equal(answer.message.content, "echo: yo");
    const sent = claude.requests.findLast((r) => r.path === "/v1/messages")!.body as Record<string, unknown>;
    assert.deepEqual(sent["messages"], [{ role: "user", content: [{ type: "text", text: "yo" }] }]);
  });

  it("embed and the older embeddings", async () => {
    calls++;
    const embedded = await client.embed({ model: "nomic-embed-text", input: ["a", "b"] });
    assert.equal(embedded.embeddings.length, 2);
    assert.equal(embedded.embeddings[0]?.length, 8);
    calls++;
    const legacy = await client.embeddings({ model: "nomic-embed-text", prompt: "a" });
    assert.deepEqual(legacy.embedding, embedded.embeddings[0]);
  });

  it("errors in Ollama's words: unknown model 404, a bad body 400", async () => {
    calls++;
    await assert.rejects(
      client.chat({ model: "nope", messages: [{ role: "user", content: "x" }] }),
      (error: unknown) => {
        const status = (error as { status_code?: number }).status_code;
        assert.equal(status, 404);
        assert.equal((error as Error).message, "model 'nope' not found");
        return true;
      },
    );
    calls++;
    const bad = await postJson(`${url}/api/chat`, { model: "llama3", messages: "no" });
    assert.equal(bad.status, 400);
    assert.equal(typeof bad.json().error, "string");
    await assert.rejects(client.show({ model: "nope" }), /model 'nope' not found/);
    const missing = await http(`${url}/api/tags`);
    assert.equal(missing.status, 200);
  });

  it("stats and metrics count every chat and embeddings call", async () => {
    await assertCounted(url, calls);
  });
});

describe("Ollama's API to an ollama backend: as the client wrote it", () => {
  let ollama: FakeLlmServer;
  let client: Ollama;
  let url: string;
  const closers = new Closers();
  const lastSent = (path: string) => ollama.requests.findLast((r) => r.path === path)!.body as Record<string, unknown>;

  before(async () => {
    ollama = await startFakeOllama({ models: [{ id: "qwen3:8b", capabilities: ["completion", "tools"] }], chunks: 3 });
    url = (await startTestGateway(backendToml("box", ollama.url, "ollama"), closers)).url;
    client = new Ollama({ host: url });
  });
  after(async () => {
    await closers.closeAll();
    await ollama.close();
  });

  it("chat: options (num_ctx), think and keep_alive reach Ollama; the answer's thinking and counts come back", async () => {
    // A prompt longer than Ollama's default window (4096 tokens): num_ctx decides how much of it the model reads.
    const long = "word ".repeat(6000);
    const request = {
      model: "qwen3:8b",
      messages: [{ role: "user", content: long }],
      options: { num_ctx: 32768, temperature: 0.2 },
      think: true,
      keep_alive: "10m",
    };
    const answer = await client.chat({ ...request, stream: false });
    assert.deepEqual(lastSent("/api/chat"), { ...request, stream: false }, "the body as written");
    assert.equal(answer.message.thinking, `Thinking about: ${long}`);
    assert.ok(answer.prompt_eval_count > 4096, `the whole prompt was read: ${answer.prompt_eval_count} tokens`);
    assert.ok(answer.eval_count > 0);
  });

  it("chat stream: NDJSON line by line as Ollama wrote it, thinking first; its counts are the request's", async () => {
    const parts = [];
    for await (const part of await client.chat({
      model: "qwen3:8b",
      messages: [{ role: "user", content: "hi" }],
      think: true,
      stream: true,
    })) {
      parts.push(part);
    }
    assert.equal(parts[0]?.message.thinking, "Thinking about: hi");
    assert.equal(parts.map((part) => part.message.content).join(""), "echo: hi");
    assert.equal(parts.at(-1)?.done, true);
    assert.ok((parts.at(-1)?.prompt_eval_count ?? 0) > 0);
    const counted = async () => {
      const metrics = (await http(`${url}/metrics`)).text;
      return metrics
        .split("\n")
        .some(
          (row) =>
            row.startsWith("gateway_tokens_total{") &&
            row.includes('backend="box"') &&
            row.includes('type="completion"'),
        );
    };
    await waitUntil(counted, { timeoutMs: 5_000, what: "the ollama backend's completion tokens" });
  });

  it("generate: think and the options go through; a stream that breaks off ends with Ollama's error line", async () => {
    const generated = await client.generate({
      model: "qwen3:8b",
      prompt: "why",
      think: true,
      options: { num_ctx: 8192 },
      stream: false,
    });
    assert.equal(generated.thinking, "Thinking about: why");
    assert.equal(generated.response, "echo: why");
    assert.deepEqual(lastSent("/api/generate")["options"], { num_ctx: 8192 });

    ollama.setFault({ kind: "die-mid-stream", afterChunks: 2 });
    try {
      const raw = await postJson(`${url}/api/generate`, { model: "qwen3:8b", prompt: "why" });
      assert.equal(raw.status, 200);
      const lines = raw.text
        .trim()
        .split("\n")
        .map((line: string) => JSON.parse(line));
      assert.match(lines.at(-1).error, /broke off/);
    } finally {
      ollama.setFault({ kind: "none" });
    }
  });
});

describe("Ollama's generate with what only Ollama does: fill-in-the-middle, raw, a template", () => {
  let ollama: FakeLlmServer;
  let compatible: FakeLlmServer;
  let client: Ollama;
  let url: string;
  const closers = new Closers();
  const lastSent = () => ollama.requests.findLast((r) => r.path === "/api/generate")!.body as Record<string, unknown>;
  const fill = { model: "qwen2.5-coder", prompt: "def add(a, b):", suffix: "    return c" };
  /** Chat requests the OpenAI-compatible backend was sent (its health probes aside). */
  const compatibleChats = () => compatible.requests.filter((r) => r.path === "/v1/chat/completions").length;

  before(async () => {
    ollama = await startFakeOllama({
      models: [
        { id: "qwen2.5-coder", capabilities: ["completion", "insert"] },
        { id: "llama3", capabilities: ["completion"] },
      ],
      chunks: 3,
    });
    // An OpenAI-compatible server with the coder model too, behind the ollama backend by priority; and a model only
    // it serves.
    compatible = await startFakeOpenAI({ models: [{ id: "qwen2.5-coder" }, { id: "starcoder2" }] });
    const gateway = await startTestGateway(
      FAILOVER_ROUTING +
        backendToml("box", ollama.url, "ollama", "priority = 10") +
        backendToml("compatible", compatible.url, "vllm", "priority = 90"),
      closers,
    );
    url = gateway.url;
    client = new Ollama({ host: url });
  });
  after(async () => {
    await closers.closeAll();
    await ollama.close();
    await compatible.close();
  });

  it("a suffix reaches Ollama, whose model fills in the middle (whole and streamed)", async () => {
    const whole = await client.generate({ ...fill, stream: false });
    assert.equal(whole.response, "echo: <PRE> def add(a, b): <SUF>    return c <MID>");
    assert.deepEqual(lastSent(), { ...fill, stream: false }, "the body as written");
    let text = "";
    for await (const part of await client.generate({ ...fill, stream: true })) text += part.response;
    assert.equal(text, whole.response);
  });

  it("raw and a template go as written", async () => {
    const prompt = "<|fim_prefix|>def add(a, b):<|fim_suffix|>    return c<|fim_middle|>";
    const raw = await client.generate({ model: "qwen2.5-coder", prompt, raw: true, stream: false });
    assert.equal(raw.response, `echo: ${prompt}`);
    assert.equal(lastSent()["raw"], true);
    await client.generate({ model: "qwen2.5-coder", prompt: "hi", template: "{{ .Prompt }}", stream: false });
    assert.equal(lastSent()["template"], "{{ .Prompt }}");
  });

  it("a model that cannot fill in: Ollama's own refusal", async () => {
    await assert.rejects(client.generate({ ...fill, model: "llama3", stream: false }), (error: unknown) => {
      assert.equal((error as { status_code?: number }).status_code, 400);
      assert.equal((error as Error).message, '"llama3" does not support insert');
      return true;
    });
  });

  it("never goes to a backend that would answer something else, even when Ollama fails", async () => {
    await waitUntil(async () => (await postJson(`${url}/api/generate`, { ...fill, stream: false })).status === 200, {
      what: "the ollama backend serving",
    });
    const before = compatibleChats();
    ollama.setFault({ kind: "status", status: 500, scope: "inference" });
    try {
      const failed = await postJson(`${url}/api/generate`, { ...fill, stream: false });
      assert.equal(failed.status, 502);
      assert.equal(typeof failed.json().error, "string");
      assert.equal(compatibleChats(), before, "the OpenAI-compatible backend was never asked");
      // Without the suffix the same model fails over, through the translation.
      const plain = await postJson(`${url}/api/generate`, { model: fill.model, prompt: "hi", stream: false });
      assert.equal(plain.status, 200);
      assert.equal(plain.headers["x-gateway-backend"], "compatible");
      assert.equal(plain.json().response, "echo: hi");
    } finally {
      ollama.setFault({ kind: "none" });
    }
  });

  it("show: an ollama backend's own answer (template, capabilities), the fleet's facts for the other models", async () => {
    const shown = await postJson(`${url}/api/show`, { model: "qwen2.5-coder" });
    assert.equal(shown.headers["x-gateway-backend"], "box");
    assert.deepEqual(shown.json().capabilities, ["completion", "insert"]);
    assert.match(shown.json().template, /\.Suffix/, "the template says fill-in-the-middle works");
    assert.equal((await client.show({ model: "qwen2.5-coder" })).template, shown.json().template);
    const fleet = await postJson(`${url}/api/show`, { model: "starcoder2" });
    assert.equal(fleet.status, 200);
    assert.equal(fleet.headers["x-gateway-backend"], undefined);
    assert.equal(fleet.json().template, "");
  });

  it("a model no ollama backend serves: 400 naming what only Ollama does", async () => {
    const before = compatibleChats();
    for (const [extra, what] of [
      [{ suffix: "x" }, "suffix (fill-in-the-middle)"],
      [{ raw: true }, "raw (a prompt without the model's template)"],
    ] as const) {
      const refused = await postJson(`${url}/api/generate`, { model: "starcoder2", prompt: "p", ...extra });
      assert.equal(refused.status, 400);
      assert.equal(
        refused.json().error,
        `${what} can only go to a backend that speaks ollama, and no backend of model 'starcoder2' does`,
      );
    }
    assert.equal(compatibleChats(), before);
  });
});
