import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOllama, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import { backendToml, Closers, hello, http, postJson, sseData, startTestGateway } from "./helpers.ts";

describe("routing over HTTP: capabilities, 503 body, policies, capacity", () => {
  let vision: FakeLlmServer;
  let text: FakeLlmServer;
  let cloudish: FakeLlmServer;
  let url: string;
  const closers = new Closers();

  before(async () => {
    vision = await startFakeOllama({
      models: [
        { id: "llava", capabilities: ["completion", "vision"], contextLength: 4096 },
        { id: "shared", capabilities: ["completion", "vision"], contextLength: 4096 },
      ],
    });
    text = await startFakeOllama({
      models: [
        { id: "shared", capabilities: ["completion", "tools"], contextLength: 100 },
        { id: "embedder", capabilities: ["embedding"] },
      ],
    });
    cloudish = await startFakeOpenAI({ models: [{ id: "secret-model" }, { id: "busy-model" }] });
    const gateway = await startTestGateway(
      // Without the queue, a backend at capacity is a 503 at once (queueing is tested in queue.test.ts).
      "[queue]\nenabled = false\n" +
        '[[routing.policies]]\nmodel_pattern = "secret-*"\nprivacy = "restricted"\nmin_tier = 2\n' +
        backendToml("vision-box", vision.url, "ollama", "priority = 1") +
        backendToml("text-box", text.url, "ollama", "priority = 2") +
        backendToml("edge", cloudish.url, "generic", 'zone = "OPEN"\ntier = 3\nmax_concurrent = 1'),
      closers,
    );
    url = gateway.url;
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([vision.close(), text.close(), cloudish.close()]);
  });

  const chat = (body: unknown) => postJson(`${url}/v1/chat/completions`, body);

  it("image parts go to a vision model, tools to a tools model", async () => {
    const image = [
      { type: "text", text: "what is this" },
      { type: "image_url", image_url: { url: "data:image/png;base64,AA==" } },
    ];
    const seen = await chat(hello("shared", { messages: [{ role: "user", content: image }] }));
    assert.equal(seen.status, 200, seen.text);
    assert.equal(seen.headers["x-gateway-backend"], "vision-box");
    const tools = await chat(
      hello("shared", { tools: [{ type: "function", function: { name: "f", parameters: {} } }] }),
    );
    assert.equal(tools.headers["x-gateway-backend"], "text-box");
  });

  it("JSON mode is accepted by Ollama models (Nexus excludes them)", async () => {
    const response = await chat(hello("llava", { response_format: { type: "json_object" } }));
    assert.equal(response.status, 200, response.text);
  });

  it("a prompt longer than a model's context is excluded with context_length_exceeded", async () => {
    const long = "word ".repeat(200); // ~250 tokens: more than text-box's 100
    const response = await chat(
      hello("shared", {
        messages: [{ role: "user", content: long }],
        tools: [{ type: "function", function: { name: "f" } }],
      }),
    );
    assert.equal(response.status, 503);
    assert.deepEqual(response.headers["x-gateway-rejection-reasons"], "tools_unsupported, context_length_exceeded");
  });

  it("503 carries exactly the spec's body and the rejection headers", async () => {
    const response = await chat(hello("llava", { tools: [{ type: "function", function: { name: "f" } }] }));
    assert.equal(response.status, 503);
    assert.deepEqual(response.json(), {
      error: {
        message: "No backend can serve chat completions for model 'llava' right now (vision-box: tools_unsupported)",
        type: "service_unavailable",
        param: null,
        code: "no_available_backend",
        context: {
          required_tier: 1,
          available_backends: ["vision-box"],
          privacy_zone_required: "open",
          eta_seconds: null,
        },
      },
    });
    assert.equal(response.headers["x-gateway-rejection-reasons"], "tools_unsupported");
    assert.deepEqual(JSON.parse(String(response.headers["x-gateway-rejection-details"])), [
      { backend: "vision-box", model: "llava", reason: "tools_unsupported", detail: "the request has tools" },
    ]);
    assert.ok(response.headers["x-request-id"]);
  });

  it("a restricted policy excludes open-zone backends: privacy_zone_mismatch, required tier and zone in context", async () => {
    const response = await chat(hello("secret-model"));
    assert.equal(response.status, 503);
    const body = response.json();
    assert.deepEqual(body.error.context, {
      required_tier: 2,
      available_backends: ["edge"],
      privacy_zone_required: "restricted",
      eta_seconds: null,
    });
    assert.equal(response.headers["x-gateway-rejection-reasons"], "privacy_zone_mismatch");
  });

  it("max_concurrent: a backend at its limit is excluded with at_capacity", async () => {
    cloudish.setFault({ kind: "stall", scope: "inference" });
    const slow = chat(hello("busy-model"));
    await waitUntil(() => cloudish.inFlight === 1, { what: "the first request to reach the backend" });
    const second = await chat(hello("busy-model"));
    assert.equal(second.status, 503);
    assert.equal(second.headers["x-gateway-rejection-reasons"], "at_capacity");
    cloudish.setFault({ kind: "none" });
    assert.equal((await slow).status, 200);
  });

  it("routes only embedding requests to embedding models", async () => {
    const ok = await postJson(`${url}/v1/embeddings`, { model: "embedder", input: "x" });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.headers["x-gateway-backend"], "text-box");
    const wrong = await postJson(`${url}/v1/embeddings`, { model: "llava", input: "x" });
    assert.equal(wrong.status, 503);
    assert.equal(wrong.json().error.code, "no_available_backend");
    assert.equal(wrong.headers["x-gateway-rejection-reasons"], "embeddings_unsupported");
    const chatOnEmbedder = await chat(hello("embedder"));
    assert.equal(chatOnEmbedder.headers["x-gateway-rejection-reasons"], "chat_unsupported");
  });

  it("embeddings errors: 400 empty or malformed, 404 unknown model", async () => {
    for (const body of [
      { model: "embedder", input: "" },
      { model: "embedder", input: [] },
      { model: "embedder", input: [1, 2] },
      { model: "embedder" },
    ]) {
      const response = await postJson(`${url}/v1/embeddings`, body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.json().error.type, "invalid_request_error");
    }
    const tooMany = await postJson(`${url}/v1/embeddings`, {
      model: "embedder",
      input: Array.from({ length: 2049 }, () => "x"),
    });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.json().error.message, /2049 items; the maximum is 2048/);
    const unknown = await postJson(`${url}/v1/embeddings`, { model: "nope", input: "x" });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json().error.code, "model_not_found");
  });

  it("embeddings: a backend error is a 502", async () => {
    text.setFault({ kind: "status", status: 500, scope: "inference" });
    try {
      const response = await postJson(`${url}/v1/embeddings`, { model: "embedder", input: "x" });
      assert.equal(response.status, 502);
      assert.equal(response.json().error.code, "backend_error");
    } finally {
      text.setFault({ kind: "none" });
    }
  });
});

describe("health checking, /health, /v1/models and /v1/stats", () => {
  it("turns a backend unhealthy after failure_threshold failures and back after recovery_threshold", async () => {
    const a = await startFakeOpenAI({ models: [{ id: "m" }] });
    const b = await startFakeOllama({ models: [{ id: "other" }] });
    const closers = new Closers();
    try {
      const gateway = await startTestGateway(
        "[health_check]\ninterval_seconds = 0.05\ntimeout_seconds = 1\nfailure_threshold = 2\nrecovery_threshold = 2\n" +
          backendToml("a", a.url) +
          backendToml("b", b.url, "ollama"),
        closers,
      );
      const health = async () => (await http(`${gateway.url}/health`)).json();
      const first = await http(`${gateway.url}/health`);
      assert.equal(first.status, 200);
      assert.deepEqual(
        { ...first.json(), uptime_seconds: 0 },
        {
          status: "healthy",
          version: "0.1.0",
          uptime_seconds: 0,
          backends: { total: 2, healthy: 2, unhealthy: 0 },
          models: { total: 2 },
        },
      );
      a.setFault({ kind: "refuse" });
      await waitUntil(async () => (await health()).status === "degraded", { what: "a to turn unhealthy" });
      const models = (await http(`${gateway.url}/v1/models`)).json();
      assert.deepEqual(
        models.data.map((m: { id: string }) => m.id),
        ["other"],
      );
      const unavailable = await postJson(`${gateway.url}/v1/chat/completions`, hello("m"));
      assert.equal(unavailable.status, 503);
      assert.equal(unavailable.headers["x-gateway-rejection-reasons"], "unhealthy");
      b.setFault({ kind: "status", status: 500 });
      await waitUntil(async () => (await health()).status === "unhealthy", { what: "every backend to be unhealthy" });
      assert.equal((await http(`${gateway.url}/health`)).status, 503);
      a.setFault({ kind: "none" });
      b.setFault({ kind: "none" });
      await waitUntil(async () => (await health()).status === "healthy", { what: "recovery" });
      assert.equal((await postJson(`${gateway.url}/v1/chat/completions`, hello("m"))).status, 200);
    } finally {
      await closers.closeAll();
      await a.close();
      await b.close();
    }
  });

  it("counts streaming and non-streaming requests per backend in /v1/stats", async () => {
    const a = await startFakeOpenAI({ models: [{ id: "m" }] });
    const closers = new Closers();
    try {
      const gateway = await startTestGateway(backendToml("counted", a.url), closers);
      await postJson(`${gateway.url}/v1/chat/completions`, hello("m"));
      const streamed = await postJson(`${gateway.url}/v1/chat/completions`, hello("m", { stream: true }));
      assert.equal(sseData(streamed.text).at(-1), "[DONE]");
      await postJson(`${gateway.url}/v1/chat/completions`, hello("unknown"));
      const stats = (await http(`${gateway.url}/v1/stats`)).json();
      assert.equal(stats.total_requests, 3);
      assert.equal(typeof stats.uptime_seconds, "number");
      const backend = stats.backends[0];
      assert.equal(backend.name, "counted");
      assert.equal(backend.requests, 2);
      assert.equal(backend.pending, 0);
      assert.ok(backend.average_latency_ms > 0);
      assert.equal(backend.status, "healthy");
    } finally {
      await closers.closeAll();
      await a.close();
    }
  });
});
