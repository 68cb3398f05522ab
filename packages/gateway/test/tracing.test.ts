import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { propagation, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import OpenAI from "openai";
import type { RunningGateway } from "../src/gateway.ts";
import { backendToml, Closers, postJson, startTestGateway } from "./helpers.ts";

describe("OpenTelemetry tracing", () => {
  const exporter = new InMemorySpanExporter();
  let broken: FakeLlmServer;
  let working: FakeLlmServer;
  let gateway: RunningGateway;
  let untraced: RunningGateway;
  const closers = new Closers();

  before(async () => {
    // What an operator's `node --import` setup does: register an SDK globally.
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    broken = await startFakeOpenAI({ models: [{ id: "m" }] });
    working = await startFakeOpenAI({ models: [{ id: "m" }] });
    const backends =
      "[health_check]\ninterval_seconds = 3600\nfailure_threshold = 100\n" +
      '[routing]\nstrategy = "priority_only"\n' +
      backendToml("broken", broken.url, "vllm", "priority = 1") +
      backendToml("working", working.url, "llamacpp", "priority = 2");
    gateway = await startTestGateway(`[tracing]\nenabled = true\n${backends}`, closers);
    untraced = await startTestGateway(backends, closers);
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([broken.close(), working.close()]);
  });

  it("records a server span per request and a client span per attempt, with GenAI attribute names", async () => {
    broken.setFault({ kind: "status", status: 503, scope: "inference" });
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "x", maxRetries: 0 });
    await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    await waitUntil(() => exporter.getFinishedSpans().length >= 3, { what: "three finished spans" });
    const spans = exporter.getFinishedSpans();
    const server = spans.find((span) => span.kind === 1)!;
    const clients = spans.filter((span) => span.kind === 2);
    assert.equal(server.name, "chat m");
    assert.equal(clients.length, 2, "one span per attempt: the failed one and the failover");
    for (const span of clients) assert.equal(span.parentSpanContext?.spanId, server.spanContext().spanId);
    assert.equal(server.attributes["gen_ai.operation.name"], "chat");
    assert.equal(server.attributes["gen_ai.request.model"], "m");
    assert.equal(server.attributes["gen_ai.response.model"], "m");
    assert.ok(Number(server.attributes["gen_ai.usage.input_tokens"]) > 0);
    assert.ok(Number(server.attributes["gen_ai.usage.output_tokens"]) > 0);
    assert.equal(server.attributes["http.response.status_code"], 200);
    const [failed, answered] = clients.sort(
      (a, b) => Number(a.attributes["switchboard.attempt"]) - Number(b.attributes["switchboard.attempt"]),
    );
    assert.equal(failed!.attributes["gen_ai.provider.name"], "vllm");
    assert.equal(failed!.attributes["error.type"], "http_status");
    assert.equal(failed!.status.code, 2);
    assert.equal(answered!.attributes["gen_ai.provider.name"], "llamacpp");
    assert.equal(answered!.attributes["server.address"], "127.0.0.1");
  });

  it("continues the client's trace when it sends a traceparent", async () => {
    exporter.reset();
    broken.setFault({ kind: "none" });
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: "m", messages: [{ role: "user", content: "hi" }] },
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    assert.equal(response.status, 200);
    await waitUntil(() => exporter.getFinishedSpans().some((span) => span.kind === 1), { what: "the server span" });
    const server = exporter.getFinishedSpans().find((span) => span.kind === 1)!;
    assert.equal(server.spanContext().traceId, traceId);
    assert.equal(server.parentSpanContext?.spanId, "00f067aa0ba902b7");
  });

  it("records nothing for a gateway where tracing is not enabled", async () => {
    exporter.reset();
    const client = new OpenAI({ baseURL: `${untraced.url}/v1`, apiKey: "x", maxRetries: 0 });
    broken.setFault({ kind: "none" });
    await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(exporter.getFinishedSpans().length, 0);
  });
});
