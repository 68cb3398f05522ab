import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Backend } from "../../src/backends/types.ts";
import type { BackendSettings } from "../../src/config/types.ts";
import { BackendState } from "../../src/fleet/backend-state.ts";
import { ConcurrencySlots } from "../../src/fleet/slots.ts";
import { EventBus } from "../../src/telemetry/events.ts";
import { Stats } from "../../src/telemetry/stats.ts";

const settings: BackendSettings = {
  name: "b",
  url: "http://127.0.0.1:1",
  type: "vllm",
  kind: "local",
  zone: "restricted",
  tier: 1,
  priority: 50,
  maxConcurrent: undefined,
  apiKey: undefined,
  models: [],
  options: {},
};
const backend = { settings } as unknown as Backend;
const thresholds = { failureThreshold: 3, recoveryThreshold: 2 };

describe("backend health state", () => {
  it("takes the first probe's result, then needs N failures or M successes in a row", () => {
    const state = new BackendState(backend);
    assert.equal(state.status, "unknown");
    assert.deepEqual(state.probeSucceeded([{ id: "m" }], 10, thresholds), {
      backend: "b",
      from: "unknown",
      to: "healthy",
      reason: "1 successful probe(s)",
    });
    assert.equal(state.failed("refused", thresholds), undefined);
    assert.equal(state.failed("refused", thresholds), undefined);
    assert.equal(state.probeSucceeded([{ id: "m" }], 10, thresholds), undefined, "a success resets the failure count");
    assert.equal(state.failed("refused", thresholds), undefined);
    assert.equal(state.failed("refused", thresholds), undefined);
    assert.equal(state.failed("refused", thresholds)?.to, "unhealthy");
    assert.equal(state.lastError, "refused");
    assert.equal(state.probeSucceeded([], 10, thresholds), undefined);
    assert.equal(state.failed("again", thresholds), undefined, "a failure resets the success count");
    assert.equal(state.probeSucceeded([], 10, thresholds), undefined);
    assert.equal(state.probeSucceeded([], 10, thresholds)?.to, "healthy");
    assert.equal(state.lastError, undefined);
    const fresh = new BackendState(backend);
    assert.equal(fresh.failed("down", thresholds)?.to, "unhealthy", "unknown turns unhealthy on the first failure");
  });

  it("keeps a probe-latency moving average", () => {
    const state = new BackendState(backend);
    state.probeSucceeded([], 100, thresholds);
    state.probeSucceeded([], 200, thresholds);
    assert.equal(state.probeLatencyMs, 120);
  });

  it("owns its concurrency through acquire and release", () => {
    const slots = new ConcurrencySlots(2);
    let released = 0;
    slots.onRelease(() => released++);
    assert.ok(slots.tryAcquire());
    assert.ok(slots.tryAcquire());
    assert.equal(slots.tryAcquire(), false, "at max_concurrent");
    assert.equal(slots.inFlight, 2);
    slots.release();
    assert.equal(released, 1, "a release is heard at once");
    assert.ok(slots.hasRoom);
    slots.release();
    assert.throws(() => slots.release(), /not acquired/);
  });

  it("derives request counters from the event stream", () => {
    const events = new EventBus();
    const stats = new Stats(events);
    const scope = {
      requestId: "r",
      endpoint: "chat",
      requestedModel: "m",
      model: "m",
      stream: false,
      attempt: 0,
    } as const;
    events.emit({ type: "request_received", ...scope, priority: "normal" });
    events.emit({
      type: "attempt_finished",
      ...scope,
      backend: "b",
      status: 200,
      outcome: "ok",
      durationMs: 10,
      ttftMs: 10,
    });
    events.emit({
      type: "attempt_failed",
      ...scope,
      backend: "b",
      errorKind: "http_status",
      status: 500,
      backendFault: true,
      message: "b: HTTP 500",
      durationMs: 30,
      ttftMs: undefined,
    });
    events.emit({
      type: "attempt_finished",
      ...scope,
      backend: "b",
      status: 0,
      outcome: "client_abort",
      durationMs: 20,
      ttftMs: undefined,
    });
    const counters = stats.backend("b");
    assert.deepEqual(
      [
        stats.totalRequests,
        counters.requests,
        counters.errors,
        counters.clientAborts,
        counters.totalLatencyMs / counters.requests,
      ],
      [1, 3, 1, 1, 20],
    );
  });

  it("gives each model a stable created time", () => {
    const state = new BackendState(backend);
    state.setModels([{ id: "a", created: 1_600_000_000 }, { id: "b" }]);
    const b = state.firstSeen("b");
    state.setModels([{ id: "a" }, { id: "b" }]);
    assert.equal(state.firstSeen("a"), 1_600_000_000);
    assert.equal(state.firstSeen("b"), b);
  });
});
