import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import OpenAI from "openai";
import type { RunningGateway } from "../src/gateway.ts";
import type { RequestCompleted } from "../src/telemetry/events.ts";
import { backendToml, Closers, hello, http, postJson, startTestGateway } from "./helpers.ts";

const PROMTOOL = "/usr/bin/promtool";

/** The sum of a counter's samples whose labels include every given `name="value"`. */
function counterSum(text: string, metric: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${metric}{`)) continue;
    if (!Object.entries(labels).every(([name, value]) => line.includes(`${name}="${value}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

describe("metrics, stats and history read the same event stream", () => {
  let flaky: FakeLlmServer;
  let steady: FakeLlmServer;
  let gateway: RunningGateway;
  let client: OpenAI;
  const closers = new Closers();
  const completed: RequestCompleted[] = [];

  before(async () => {
    flaky = await startFakeOpenAI({ models: [{ id: "m" }] });
    steady = await startFakeOpenAI({ models: [{ id: "m" }, { id: "e", capabilities: ["embedding"] }] });
    gateway = await startTestGateway(
      "[server]\nport = 0\nhistory_size = 5\n[health_check]\ninterval_seconds = 3600\nfailure_threshold = 100\n" +
        '[routing]\nstrategy = "priority_only"\n' +
        backendToml("flaky", flaky.url, "vllm", "priority = 1") +
        backendToml("steady", steady.url, "vllm", "priority = 2"),
      closers,
    );
    gateway.events.on("request_completed", (event) => completed.push(event));
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "x", maxRetries: 0 });
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([flaky.close(), steady.close()]);
  });

  it("counts every request exactly once, whatever its outcome, with backend, route reason and tokens", async () => {
    const before = completed.length;
    await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _chunk of stream) {
      // drained
    }
    flaky.setFault({ kind: "status", status: 503, scope: "inference" });
    await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "failover" }] });
    flaky.setFault({ kind: "none" });
    await assert.rejects(
      client.chat.completions.create({ model: "nope", messages: [{ role: "user", content: "hi" }] }),
      OpenAI.NotFoundError,
    );
    assert.equal((await http(`${gateway.url}/v1/chat/completions`, { body: "{not json" })).status, 400);
    assert.equal((await postJson(`${gateway.url}/v1/chat/completions`, { model: "m" })).status, 400);
    await client.embeddings.create({ model: "e", input: "hello" });
    // The last completion is reported once its response has closed, which may be just after the SDK call returned.
    await waitUntil(() => completed.length - before >= 7, { what: "seven completed requests" });
    const mine = completed.slice(before);
    assert.equal(mine.length, 7, "one request_completed per request");
    assert.deepEqual(
      mine.map((event) => [event.endpoint, event.status, event.outcome, event.backend ?? null, event.attempts]),
      [
        ["chat", 200, "ok", "flaky", 1],
        ["chat", 200, "ok", "flaky", 1],
        ["chat", 200, "ok", "steady", 2],
        ["chat", 404, "rejected", null, 0],
        ["chat", 400, "rejected", null, 0],
        ["chat", 400, "rejected", null, 0],
        ["embeddings", 200, "ok", "steady", 1],
      ],
    );
    assert.equal(mine[2]!.routeReason, "failover");
    assert.ok(mine[0]!.promptTokens! > 0 && mine[0]!.completionTokens! > 0, "tokens of a plain answer");
    assert.ok(mine[1]!.completionTokens! > 0, "tokens of a stream's usage chunk");
    assert.ok(mine[6]!.promptTokens! > 0, "tokens of an embeddings answer");

    // History: bounded to history_size, newest first, the same facts.
    const history = (await http(`${gateway.url}/v1/history`)).json();
    assert.equal(history.capacity, 5);
    assert.deepEqual(
      history.data.map((entry: { request_id: string }) => entry.request_id),
      mine
        .slice(-5)
        .reverse()
        .map((event) => event.requestId),
    );
    assert.equal((await http(`${gateway.url}/v1/history?limit=2`)).json().data.length, 2);

    // Stats and metrics agree with the events.
    const stats = (await http(`${gateway.url}/v1/stats`)).json();
    assert.deepEqual(
      [stats.requests.completed, stats.requests.succeeded, stats.requests.rejected, stats.requests.errors],
      [7, 4, 3, 0],
    );
    const model = stats.models.find((entry: { model: string }) => entry.model === "m");
    assert.equal(model.requests, 3);
    const metrics = (await http(`${gateway.url}/metrics`)).text;
    assert.equal(counterSum(metrics, "gateway_requests_total"), 7);
    assert.equal(counterSum(metrics, "gateway_requests_total", { outcome: "rejected" }), 3);
    assert.equal(counterSum(metrics, "gateway_errors_total", { kind: "http_status", backend: "flaky" }), 1);
    assert.ok(counterSum(metrics, "gateway_tokens_total", { type: "completion" }) > 0);
    assert.match(metrics, /gateway_routing_stage_duration_seconds_bucket\{stage="health",le="0\.00001"\}/);
    assert.match(metrics, /gateway_backend_healthy\{backend="steady"\} 1/);
  });

  it("never turns a client's model name into a label", async () => {
    for (let i = 0; i < 300; i++) await postJson(`${gateway.url}/v1/chat/completions`, hello(`made-up-${i}`));
    const metrics = (await http(`${gateway.url}/metrics`)).text;
    assert.doesNotMatch(metrics, /made-up-/);
    assert.ok(counterSum(metrics, "gateway_requests_total", { model: "other", status: "404" }) >= 300);
  });

  it("serves fleet recommendations (none yet: too little history)", async () => {
    const body = (await http(`${gateway.url}/v1/fleet/recommendations`)).json();
    assert.deepEqual(Object.keys(body).sort(), ["fleet_enabled", "generated_at", "recommendations"]);
    assert.deepEqual([body.fleet_enabled, body.recommendations], [true, []]);
    assert.ok(!Number.isNaN(Date.parse(body.generated_at)));
  });

  it("answers a bad history limit with a 400 naming the range", async () => {
    for (const limit of ["0", "6", "-1", "x", "1e3", "__proto__"]) {
      const response = await http(`${gateway.url}/v1/history?limit=${limit}`);
      assert.equal(response.status, 400, limit);
      assert.match(response.json().error.message, /between 1 and 5/);
    }
  });

  it("publishes the process's own gauges under the gateway's names", async () => {
    const text = await (await http(`${gateway.url}/metrics`)).text;
    for (const series of [
      "gateway_process_cpu_seconds_total",
      "gateway_process_resident_memory_bytes",
      'gateway_process_heap_bytes{kind="used"}',
      'gateway_event_loop_delay_seconds{statistic="p99"}',
      "gateway_process_start_time_seconds",
    ]) {
      const line = text.split("\n").find((l) => l.startsWith(`${series} `));
      assert.ok(line !== undefined && Number(line.slice(series.length + 1)) >= 0, `${series} in /metrics`);
    }
    assert.match(text, /^nodejs_active_resources\{type="TCPServerWrap"\} [1-9]/m);
  });

  it("passes promtool's checks", { skip: !existsSync(PROMTOOL) && process.env["CI"] !== "true" }, async () => {
    const check = spawnSync(PROMTOOL, ["check", "metrics"], { input: (await http(`${gateway.url}/metrics`)).text });
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
  });
});
