import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI } from "@switchboard/testkit";
import type { RunningGateway } from "../src/gateway.ts";
import type { GatewayEvent } from "../src/telemetry/events.ts";
import { backendToml, Closers, hello, http, postJson, startTestGateway } from "./helpers.ts";

describe("the event stream: a subscriber sees every step of a request (what metrics will read)", () => {
  let broken: FakeLlmServer;
  let working: FakeLlmServer;
  let gateway: RunningGateway;
  const closers = new Closers();

  before(async () => {
    broken = await startFakeOpenAI({ models: [{ id: "m" }] });
    working = await startFakeOpenAI({ models: [{ id: "m" }] });
    gateway = await startTestGateway(
      "[health_check]\ninterval_seconds = 3600\nfailure_threshold = 100\n" +
        '[routing]\nstrategy = "priority_only"\n' +
        backendToml("broken", broken.url, "vllm", "priority = 1") +
        backendToml("working", working.url, "vllm", "priority = 2"),
      closers,
    );
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([broken.close(), working.close()]);
  });

  it("request received, an attempt failed, an attempt finished — with ids, durations, ttft and status", async () => {
    broken.setFault({ kind: "status", status: 503, scope: "inference" });
    const seen: GatewayEvent[] = [];
    const off = gateway.events.onAny((event) => {
      if ("requestId" in event && event.requestId === "evt-1") seen.push(event);
    });
    const completion = gateway.events.next("request_completed", (event) => event.requestId === "evt-1");
    const response = await postJson(`${gateway.url}/v1/chat/completions`, hello("m", { stream: true }), {
      "x-request-id": "evt-1",
    });
    const completed = await completion;
    off();
    assert.equal(response.status, 200);
    assert.deepEqual(
      seen.map((event) => event.type),
      [
        "request_received",
        "attempt_started",
        "attempt_failed",
        "attempt_started",
        "attempt_finished",
        "request_completed",
      ],
    );
    // The request as a whole: the backend that answered after one failover, and how it ended.
    assert.deepEqual(
      [completed.backend, completed.model, completed.status, completed.outcome, completed.attempts, completed.stream],
      ["working", "m", 200, "ok", 2, true],
    );
    assert.equal(completed.routeReason, "failover");
    const failed = seen[2] as Extract<GatewayEvent, { type: "attempt_failed" }>;
    assert.deepEqual(
      [failed.backend, failed.model, failed.errorKind, failed.status, failed.backendFault, failed.attempt],
      ["broken", "m", "http_status", 503, true, 0],
    );
    const finished = seen[4] as Extract<GatewayEvent, { type: "attempt_finished" }>;
    assert.deepEqual(
      [finished.backend, finished.stream, finished.status, finished.outcome, finished.attempt],
      ["working", true, 200, "ok", 1],
    );
    assert.ok(finished.durationMs >= 0 && finished.ttftMs !== undefined && finished.ttftMs <= finished.durationMs);
    // /v1/stats reads the same stream.
    const stats = JSON.parse((await http(`${gateway.url}/v1/stats`)).text);
    const byName = Object.fromEntries(stats.backends.map((b: { name: string }) => [b.name, b]));
    assert.deepEqual([byName.broken.requests, byName.broken.errors], [1, 1]);
    assert.deepEqual([byName.working.requests, byName.working.errors, byName.working.pending], [1, 0, 0]);
    broken.setFault({ kind: "none" });
  });
});
