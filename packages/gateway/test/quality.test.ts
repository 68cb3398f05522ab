import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeLlmServer, startFakeOpenAI, waitUntil } from "@switchboard/testkit";
import type { RunningGateway } from "../src/gateway.ts";
import { backendToml, Closers, hello, postJson, startTestGateway } from "./helpers.ts";

const chatCount = (fake: FakeLlmServer) => fake.requests.filter((r) => r.path === "/v1/chat/completions").length;

describe("quality tracking: error-rate exclusion per backend and model, half-open probe", () => {
  let flaky: FakeLlmServer;
  let steady: FakeLlmServer;
  let gateway: RunningGateway;
  const closers = new Closers();

  before(async () => {
    flaky = await startFakeOpenAI({ models: [{ id: "m" }, { id: "other" }] });
    steady = await startFakeOpenAI({ models: [{ id: "m" }] });
    gateway = await startTestGateway(
      // Health never takes flaky out here (failure_threshold): quality alone does, per model.
      "[health_check]\ninterval_seconds = 3600\nfailure_threshold = 1000\n" +
        '[routing]\nstrategy = "priority_only"\n' +
        "[quality]\nerror_rate_threshold = 0.5\nmin_requests = 2\nwindow_seconds = 60\ncooldown_seconds = 0.3\n" +
        backendToml("flaky", flaky.url, "vllm", "priority = 1") +
        backendToml("steady", steady.url, "vllm", "priority = 2"),
      closers,
    );
  });
  after(async () => {
    await closers.closeAll();
    await Promise.all([flaky.close(), steady.close()]);
  });

  const chat = (model = "m") => postJson(`${gateway.url}/v1/chat/completions`, hello(model));

  it("excludes a failing backend for that model, then brings it back with one half-open trial", async () => {
    flaky.setFault({ kind: "status", status: 500, scope: "inference" });
    for (let i = 0; i < 2; i++) {
      const response = await chat();
      assert.equal(response.status, 200);
      assert.equal(response.headers["x-gateway-route-reason"], "failover", "flaky was tried and failed");
    }
    const tried = chatCount(flaky);
    const excluded = await chat();
    assert.equal(excluded.headers["x-gateway-backend"], "steady");
    assert.notEqual(excluded.headers["x-gateway-route-reason"], "failover", "flaky was not even tried");
    assert.equal(chatCount(flaky), tried);

    // Other models on the same backend are unaffected (the failures were for "m").
    flaky.setFault({ kind: "none" });
    const other = await chat("other");
    assert.equal(other.headers["x-gateway-backend"], "flaky");

    // After the cool-down one trial request goes to flaky; it succeeds and flaky is back for "m".
    const back = await waitUntil(
      async () => {
        const response = await chat();
        return response.headers["x-gateway-backend"] === "flaky" ? response : undefined;
      },
      { what: "the half-open trial to reach flaky", timeoutMs: 10_000, intervalMs: 50 },
    );
    assert.equal(back.status, 200);
    const again = await chat();
    assert.equal(again.headers["x-gateway-backend"], "flaky", "closed again after a successful trial");
  });

  it("half-open admits exactly one trial; while it runs, the other requests go elsewhere", async () => {
    flaky.setFault({ kind: "status", status: 500, scope: "inference" });
    for (let i = 0; i < 2; i++) await chat();
    const before = chatCount(flaky);
    // The trial will hang at flaky, so it is easy to see which request became the trial.
    flaky.setFault({ kind: "stall", scope: "inference" });
    const sent: Promise<unknown>[] = [];
    await waitUntil(
      () => {
        if (flaky.inFlight === 1) return true;
        sent.push(chat()); // served by steady while the circuit is open; the first after the cool-down is the trial
        return false;
      },
      { what: "a half-open trial to reach flaky", timeoutMs: 10_000, intervalMs: 25 },
    );
    const burst = await Promise.all(Array.from({ length: 8 }, () => chat()));
    for (const response of burst) assert.equal(response.headers["x-gateway-backend"], "steady");
    flaky.setFault({ kind: "status", status: 500, scope: "inference" }); // the trial fails (and fails over)
    await Promise.all(sent);
    assert.equal(chatCount(flaky) - before, 1, "exactly one trial reached flaky");
    // (That a failed trial opens the circuit again is shown with a controlled clock in unit/quality.test.ts.)
    flaky.setFault({ kind: "none" });
  });
});
