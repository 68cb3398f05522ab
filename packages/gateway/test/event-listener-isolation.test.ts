// A subscriber of the event bus that throws never breaks a request nor leaks a backend slot: the bus isolates it,
// counts it in a metric and reports it once per listener.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI } from "@switchboard/testkit";
import type { RunningGateway } from "../src/gateway.ts";
import { EventBus, type EventType, type GatewayEvent } from "../src/telemetry/events.ts";
import { backendToml, Closers, hello, http, postJson, startTestGateway } from "./helpers.ts";

describe("event bus listeners that throw", () => {
  it("are isolated: later listeners still run, each throw is counted, each listener reported once", () => {
    const reported: { event: EventType; error: unknown }[] = [];
    const bus = new EventBus({ onListenerError: (failure) => reported.push(failure) });
    let later = 0;
    bus.on("queued", () => {
      throw new Error("first");
    });
    bus.onAny(() => {
      throw new Error("any");
    });
    bus.on("queued", () => later++);
    const queued: GatewayEvent = {
      type: "queued",
      requestId: "r",
      endpoint: "chat",
      requestedModel: "m",
      stream: false,
      priority: "normal",
      depth: 1,
    };
    for (let i = 0; i < 5; i++) bus.emit(queued);
    assert.equal(later, 5);
    assert.equal(bus.listenerErrors.get("queued"), 10);
    assert.deepEqual(
      reported.map((r) => (r.error as Error).message),
      ["first", "any"],
    );
  });

  describe("in a running gateway", () => {
    let backend: FakeLlmServer;
    let gateway: RunningGateway;
    const closers = new Closers();
    before(async () => {
      backend = await startFakeOpenAI({ models: [{ id: "m" }] });
      gateway = await startTestGateway(backendToml("b", backend.url, "vllm", "max_concurrent = 8"), closers);
    });
    after(async () => {
      await closers.closeAll();
      await backend.close();
    });

    it("answers 1,000 requests with a throwing subscriber on every event and leaks no slot", async () => {
      for (const type of ["attempt_started", "attempt_finished", "request_completed"] as const) {
        gateway.events.on(type, () => {
          throw new Error(`subscriber of ${type} failed`);
        });
      }
      gateway.events.onAny(() => {
        throw new Error("a dashboard-like subscriber failed");
      });
      let ok = 0;
      for (let round = 0; round < 50; round++) {
        const answers = await Promise.all(
          Array.from({ length: 20 }, () => postJson(`${gateway.url}/v1/chat/completions`, hello("m"))),
        );
        ok += answers.filter((answer) => answer.status === 200).length;
      }
      assert.equal(ok, 1000);
      const state = gateway.registry.backends.find((b) => b.name === "b");
      assert.equal(state?.slots.inFlight, 0);
      const metrics = (await http(`${gateway.url}/metrics`)).text;
      assert.match(metrics, /gateway_event_listener_errors_total\{event="attempt_finished"\} 2000/);
    });
  });
});
