import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import { request } from "undici";
import { backendToml, Closers, hello, postJson, sseData, startTestGateway } from "./helpers.ts";

const MODEL = { id: "llama3", contextLength: 8192 };

describe("failover, fallback and streaming failures", () => {
  let primary: FakeLlmServer;
  let secondary: FakeLlmServer;
  let small: FakeLlmServer;
  let url: string;
  const closers = new Closers();

  before(async () => {
    primary = await startFakeOpenAI({ models: [MODEL], lineEnding: "\r\n" });
    secondary = await startFakeOpenAI({ models: [MODEL] });
    small = await startFakeOpenAI({ models: [{ id: "llama3-small" }] });
    const gateway = await startTestGateway(
      `[server]\nport = 0\nrequest_timeout_seconds = 0.5\n` +
        // Probes are rare here: the tests decide health through dispatch only.
        `[health_check]\ninterval_seconds = 3600\nfailure_threshold = 100\n` +
        // Quality exclusion would take the repeatedly failing primary out of routing; these tests are about failover.
        `[quality]\nmin_requests = 1000\n` +
        `[routing]\nstrategy = "priority_only"\nmax_retries = 2\n` +
        `[routing.fallbacks]\n"big" = ["llama3-small"]\n` +
        backendToml("primary", primary.url, "vllm", 'priority = 1\n[[backends.models]]\nid = "big"') +
        backendToml("secondary", secondary.url, "generic", 'priority = 2\n[[backends.models]]\nid = "big"') +
        backendToml("small", small.url, "llamacpp", "priority = 3"),
      closers,
    );
    url = gateway.url;
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([primary.close(), secondary.close(), small.close()]);
  });
  beforeEach(() => {
    primary.setFault({ kind: "none" });
    secondary.setFault({ kind: "none" });
    small.setFault({ kind: "none" });
  });

  const chat = (extra: Record<string, unknown> = {}) => postJson(`${url}/v1/chat/completions`, hello("llama3", extra));

  it("uses the preferred backend when it works", async () => {
    const response = await chat();
    assert.equal(response.status, 200);
    assert.equal(response.headers["x-gateway-backend"], "primary");
    assert.equal(response.headers["x-gateway-route-reason"], "capability-match");
  });

  for (const [name, fault] of [
    ["connection refused", { kind: "refuse" }],
    ["HTTP 500", { kind: "status", status: 500, scope: "inference" }],
    ["HTTP 429", { kind: "status", status: 429, scope: "inference" }],
    ["a stall past request_timeout_seconds", { kind: "stall", scope: "inference" }],
  ] as const) {
    it(`fails over to the next backend on ${name}, before the first byte`, async () => {
      primary.setFault(fault);
      for (const stream of [false, true]) {
        const response = await chat({ stream });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.headers["x-gateway-backend"], "secondary");
        assert.equal(response.headers["x-gateway-route-reason"], "failover");
        if (stream) assert.equal(sseData(response.text).at(-1), "[DONE]");
        else assert.equal(JSON.parse(response.text).choices[0].message.content, "echo: hello");
      }
    });
  }

  it("relays a client-fault 4xx as it is, without failing over", async () => {
    primary.setFault({
      kind: "status",
      status: 400,
      scope: "inference",
      body: { error: { message: "bad seed", type: "invalid_request_error", param: "seed", code: null } },
    });
    const before = secondary.requests.length;
    const response = await chat();
    assert.equal(response.status, 400);
    assert.equal(response.json().error.message, "bad seed");
    assert.equal(response.headers["x-gateway-backend"], "primary");
    assert.equal(secondary.requests.length, before);
  });

  it("a backend's 401/403 is never relayed (it is the gateway's key, not the client's): failover, then 502", async () => {
    const secret = {
      error: {
        message: "Incorrect API key provided: sk-abc***xyz",
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    };
    primary.setFault({ kind: "status", status: 401, scope: "inference", body: secret });
    const failedOver = await chat();
    assert.equal(failedOver.status, 200);
    assert.equal(failedOver.headers["x-gateway-backend"], "secondary");
    secondary.setFault({ kind: "status", status: 403, scope: "inference", body: secret });
    const failed = await chat();
    assert.equal(failed.status, 502);
    assert.ok(!failed.text.includes("sk-abc"), failed.text);
    assert.match(failed.json().error.message, /primary: HTTP 401; secondary: HTTP 403/);
  });

  it("answers 502 naming every attempt when all fail, and relays 429 when every backend is rate limiting", async () => {
    primary.setFault({ kind: "status", status: 500, scope: "inference" });
    secondary.setFault({ kind: "status", status: 503, scope: "inference" });
    const failed = await chat();
    assert.equal(failed.status, 502);
    const error = failed.json().error;
    assert.equal(error.type, "server_error");
    assert.equal(error.code, "backend_error");
    assert.match(error.message, /primary: HTTP 500; secondary: HTTP 503/);
    primary.setFault({ kind: "status", status: 429, scope: "inference" });
    secondary.setFault({ kind: "status", status: 429, scope: "inference" });
    assert.equal((await chat()).status, 429);
  });

  it("answers 504 when the last backend timed out", async () => {
    primary.setFault({ kind: "refuse" });
    secondary.setFault({ kind: "stall", scope: "inference" });
    const response = await chat();
    assert.equal(response.status, 504);
    assert.equal(response.json().error.code, "backend_timeout");
  });

  it("a stream that breaks after it began ends with an error event and [DONE]", async () => {
    primary.setFault({ kind: "die-mid-stream", afterChunks: 2 });
    const response = await chat({ stream: true });
    assert.equal(response.status, 200);
    assert.equal(response.headers["x-gateway-backend"], "primary");
    const events = sseData(response.text);
    assert.equal(events.at(-1), "[DONE]");
    const error = JSON.parse(events.at(-2) ?? "{}").error;
    assert.equal(error.code, "stream_interrupted");
    assert.equal(error.type, "server_error");
    const chunks = events.slice(0, -2).map((e) => JSON.parse(e));
    assert.equal(chunks.length, 2);
    for (const chunk of chunks) assert.equal(chunk.object, "chat.completion.chunk");
  });

  it("a stream that dies before its first event fails over", async () => {
    primary.setFault({ kind: "die-mid-stream", afterChunks: 0 });
    const response = await chat({ stream: true });
    assert.equal(response.headers["x-gateway-backend"], "secondary");
    assert.equal(sseData(response.text).at(-1), "[DONE]");
  });

  it("normalises CRLF from upstream to LF and relays every event", async () => {
    const response = await chat({ stream: true });
    assert.equal(response.headers["x-gateway-backend"], "primary");
    assert.ok(!response.text.includes("\r"), "no CR reaches the client");
    assert.ok(response.text.endsWith("data: [DONE]\n\n"));
    const events = sseData(response.text);
    const text = events
      .slice(0, -1)
      .map((e) => JSON.parse(e).choices[0]?.delta?.content ?? "")
      .join("");
    assert.equal(text, "echo: hello");
    assert.equal(events.filter((e) => e === "[DONE]").length, 1);
  });

  it("aborts the upstream request at once when the client goes away mid-stream", async () => {
    const slow = await startFakeOpenAI({ models: [{ id: "slow-model" }], chunks: 200, chunkIntervalMs: 20 });
    const local = new Closers();
    try {
      const gateway = await startTestGateway(backendToml("slow", slow.url), local);
      const controller = new AbortController();
      const response = await request(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(hello("slow-model", { stream: true })),
        signal: controller.signal,
      });
      assert.equal(response.statusCode, 200);
      const reader = response.body[Symbol.asyncIterator]();
      await reader.next();
      controller.abort();
      await waitUntil(() => slow.aborted() === 1, { timeoutMs: 5_000, what: "the upstream to see the abort" });
      await waitUntil(
        async () => {
          const stats = await (await request(`${gateway.url}/v1/stats`)).body.json();
          return (stats as { backends: { pending: number }[] }).backends[0]?.pending === 0;
        },
        { what: "pending to drop to 0" },
      );
    } finally {
      await local.closeAll();
      await slow.close();
    }
  });

  it("after every backend of the model failed, tries the fallback model (X-Gateway-Fallback-Model)", async () => {
    primary.setFault({ kind: "refuse" });
    secondary.setFault({ kind: "status", status: 500, scope: "inference" });
    const response = await postJson(`${url}/v1/chat/completions`, hello("big"));
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers["x-gateway-backend"], "small");
    assert.equal(response.headers["x-gateway-fallback-model"], "llama3-small");
    assert.equal(response.headers["x-gateway-route-reason"], "failover");
    const sent = small.requests.findLast((r) => r.path === "/v1/chat/completions")?.body as { model: string };
    assert.equal(sent.model, "llama3-small");
  });
});

describe("fallback chains when no backend qualifies", () => {
  // Served on the connection (raw ingress) and by node:http: the fallback is counted either way.
  for (const rawIngress of [true, false]) {
    it(`routes to the fallback model at once when the requested one has no candidate (raw_ingress ${rawIngress})`, async () => {
      const big = await startFakeOpenAI({ models: [{ id: "big" }] });
      const small = await startFakeOpenAI({ models: [{ id: "small" }] });
      const closers = new Closers();
      try {
        const gateway = await startTestGateway(
          `[server]\nport = 0\nraw_ingress = ${rawIngress}\n` +
            '[routing.fallbacks]\nbig = ["missing", "small"]\n' +
            backendToml("big-box", big.url, "vllm", '[[backends.models]]\nid = "big"\ncapabilities = ["completion"]') +
            backendToml("small-box", small.url, "vllm"),
          closers,
        );
        const image = {
          role: "user",
          content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AA==" } }],
        };
        const response = await postJson(`${gateway.url}/v1/chat/completions`, hello("big", { messages: [image] }));
        assert.equal(response.status, 200, response.text);
        assert.equal(response.headers["x-gateway-backend"], "small-box");
        assert.equal(response.headers["x-gateway-fallback-model"], "small");
        assert.equal(response.headers["x-gateway-route-reason"], "failover");
        assert.equal(big.requests.filter((r) => r.path === "/v1/chat/completions").length, 0);
        const plain = await postJson(`${gateway.url}/v1/chat/completions`, hello("big"));
        assert.equal(plain.headers["x-gateway-backend"], "big-box");
        assert.equal(plain.headers["x-gateway-fallback-model"], undefined);
        const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
        assert.match(metrics, /^gateway_fallbacks_total\{[^}]*\} 1$/m, "one fallback counted");
      } finally {
        await closers.closeAll();
        await big.close();
        await small.close();
      }
    });
  }
});
