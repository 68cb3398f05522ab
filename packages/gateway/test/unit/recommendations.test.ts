import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DemandHistory } from "../../src/fleet/demand.ts";
import { type BackendFacts, RECOMMENDATION_DEFAULTS, recommend } from "../../src/fleet/recommendations.ts";

const HOUR = 3_600_000;
/** Monday 2026-11-09 00:00 UTC, and "now": 14 days later at 07:30. */
const START = Date.UTC(2026, 10, 9);
const NOW = START + 14 * 24 * HOUR + 7.5 * HOUR;

/** A demand history filled hour by hour by `perHour(hourIndex, hourOfDay)`, over `days` days ending now. */
function history(models: Record<string, (hour: number, hourOfDay: number) => number>, days = 14): DemandHistory {
  const demand = new DemandHistory(
    undefined,
    () => true,
    () => NOW,
  );
  const first = NOW - days * 24 * HOUR;
  for (let at = first; at <= NOW; at += HOUR) {
    const hour = Math.floor((at - first) / HOUR);
    for (const [model, perHour] of Object.entries(models)) {
      const count = perHour(hour, new Date(at).getUTCHours());
      if (count > 0) demand.record(model, count, at);
    }
  }
  return demand;
}

const fleet: BackendFacts[] = [
  { name: "gpu-a", healthy: true, canLoad: true, models: new Set(["steady", "old"]) },
  { name: "gpu-b", healthy: true, canLoad: true, models: new Set(["steady"]) },
  { name: "vllm", healthy: true, canLoad: false, models: new Set(["morning"]) },
  { name: "down", healthy: false, canLoad: true, models: new Set() },
];

const advise = (demand: DemandHistory, backends = fleet) => recommend(demand, backends, RECOMMENDATION_DEFAULTS, NOW);

describe("fleet recommendations", () => {
  it("pre-warms a model with a recurring 9 am peak on loadable, healthy backends that lack it", () => {
    const advice = advise(history({ morning: (_h, hourOfDay) => (hourOfDay === 9 ? 40 : 2) }));
    assert.equal(advice.length, 1);
    const [only] = advice;
    assert.equal(only!.kind, "prewarm");
    // Every field of Nexus's PrewarmingRecommendation, with its name and type.
    const nexusFields = ["recommendation_id", "model_id", "target_backend_ids", "confidence_score", "reasoning"];
    for (const field of [...nexusFields, "vram_required_bytes", "generated_at", "expires_at"])
      assert.ok(field in only!);
    assert.equal(only!.vram_required_bytes, null);
    assert.match(only!.recommendation_id, /^rec-/);
    assert.equal(only!.model_id, "morning");
    assert.deepEqual(only!.target_backend_ids, ["gpu-a", "gpu-b"]);
    assert.match(only!.reasoning, /peak at 09:00 UTC/);
    assert.ok(only!.confidence_score > 0.7 && only!.confidence_score <= 1, String(only!.confidence_score));
    // The same advice keeps its id.
    assert.equal(
      advise(history({ morning: (_h, hourOfDay) => (hourOfDay === 9 ? 40 : 2) }))[0]!.recommendation_id,
      only!.recommendation_id,
    );
  });

  it("pre-warms a model whose demand is rising week over week", () => {
    const advice = advise(history({ growing: (hour) => (hour < 7 * 24 ? 1 : 3) }));
    assert.equal(advice.length, 1);
    assert.equal(advice[0]!.model_id, "growing");
    assert.match(advice[0]!.reasoning, /demand up 19\d %/);
    assert.deepEqual(advice[0]!.target_backend_ids, ["gpu-a", "gpu-b"]);
  });

  it("advises unloading a model that went idle, from the loadable backends that have it", () => {
    const advice = advise(history({ old: (hour) => (hour < 10 * 24 ? 5 : 0) }));
    assert.equal(advice.length, 1);
    assert.equal(advice[0]!.kind, "unload");
    assert.deepEqual(advice[0]!.target_backend_ids, ["gpu-a"]);
    assert.match(advice[0]!.reasoning, /No request for 24 h/);
  });

  it("gives no advice for flat demand, too little history, too few requests, or no backend to act on", () => {
    assert.deepEqual(advise(history({ steady: () => 3 })), []);
    assert.deepEqual(advise(history({ morning: (_h, hourOfDay) => (hourOfDay === 9 ? 40 : 2) }, 3)), []);
    assert.deepEqual(advise(history({ rare: (hour) => (hour % 100 === 0 ? 1 : 0) })), []);
    const nothingLoadable = fleet.filter((backend) => !backend.canLoad);
    assert.deepEqual(advise(history({ morning: (_h, hourOfDay) => (hourOfDay === 9 ? 40 : 2) }), nothingLoadable), []);
  });

  it("keeps the strongest advice first, at most max_recommendations", () => {
    const models: Record<string, (hour: number, hourOfDay: number) => number> = {};
    // Peaks from 4 to 11 requests over a base of 2: the weakest is no peak at all, the strongest saturate.
    for (let i = 0; i < 8; i++) models[`peaky-${i}`] = (_h, hourOfDay) => (hourOfDay === 9 ? 4 + i : 2);
    const advice = advise(history(models));
    assert.equal(advice.length, RECOMMENDATION_DEFAULTS.maxRecommendations);
    assert.ok(!advice.some((entry) => entry.model_id === "peaky-0" || entry.model_id === "peaky-1"));
    for (let i = 1; i < advice.length; i++) assert.ok(advice[i - 1]!.confidence_score >= advice[i]!.confidence_score);
  });

  it("records only models the fleet knows, in fixed memory", () => {
    const demand = new DemandHistory(
      undefined,
      (model) => model === "known",
      () => NOW,
    );
    demand.record("known", 3);
    assert.deepEqual([...demand.models()], ["known"]);
    assert.equal(demand.hourly("known").at(-1), 3);
    assert.equal(demand.hourly("known").length, 14 * 24);
  });
});
