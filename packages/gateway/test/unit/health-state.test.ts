import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Backend } from "../../src/backends/types.ts";
import type { BackendSettings } from "../../src/config/types.ts";
import { BackendState } from "../../src/fleet/backend-state.ts";

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
  prices: undefined,
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

  it("keeps a probe-latency moving average and request counters", () => {
    const state = new BackendState(backend);
    state.probeSucceeded([], 100, thresholds);
    state.probeSucceeded([], 200, thresholds);
    assert.equal(state.probeLatencyMs, 120);
    state.recordRequest(10, "ok");
    state.recordRequest(30, "error");
    state.recordRequest(20, "client_abort");
    assert.deepEqual([state.requests, state.errors, state.clientAborts, state.averageLatencyMs], [3, 1, 1, 20]);
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
