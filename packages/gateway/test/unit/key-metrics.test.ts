import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { Registry } from "prom-client";
import { KeyMetrics, OTHER_KEYS, spendSeries } from "../../src/telemetry/key-metrics.ts";

interface Series {
  metric: string;
  key: string;
  label: string;
  value: number;
}

/** The key series of the Prometheus text (key names here need no escaping: see the names used). */
async function seriesOf(registry: Registry): Promise<Series[]> {
  const text = await registry.metrics();
  return [...text.matchAll(/^(gateway_key_\w+)\{key="([^"]*)",(?:status|type)="([^"]*)"\} (\S+)$/gm)].map(
    ([, metric, key, label, value]) => ({
      metric: metric ?? "",
      key: key ?? "",
      label: label ?? "",
      value: Number(value),
    }),
  );
}

const total = (series: Series[], metric: string, label?: string) =>
  series
    .filter((s) => s.metric === metric && (label === undefined || s.label === label))
    .reduce((sum, s) => sum + s.value, 0);

describe("per-key Prometheus series", () => {
  it("keeps the keys in use in series of their own under a churn of short-lived keys", async () => {
    const registry = new Registry();
    const metrics = new KeyMetrics(registry, 3);
    metrics.record("steady", 200, 10, 20);
    for (let job = 0; job < 10; job++) {
      metrics.record(`ci-job-${job}`, job % 2 === 0 ? 200 : 429, 1, 2);
      metrics.record("steady", 200, 10, 20);
    }
    assert.deepEqual(metrics.keys(), ["ci-job-8", "ci-job-9", "steady"]);
    const series = await seriesOf(registry);
    const requests = (key: string) =>
      series.filter((s) => s.metric === "gateway_key_requests_total" && s.key === key).map((s) => [s.label, s.value]);
    assert.deepEqual(requests("steady"), [["200", 11]]);
    assert.deepEqual(requests("ci-job-9"), [["429", 1]]);
    assert.deepEqual(requests(OTHER_KEYS), [
      ["200", 4],
      ["429", 4],
    ]);
    assert.deepEqual(
      series.filter((s) => s.metric === "gateway_key_tokens_total" && s.key === OTHER_KEYS).map((s) => s.value),
      [8, 16],
    );
    assert.ok(!series.some((s) => s.key === "ci-job-0"), "an evicted key has no series of its own");
  });

  it("starts a key that comes back after its eviction from 0, its earlier counts staying in (other)", async () => {
    const registry = new Registry();
    const metrics = new KeyMetrics(registry, 1);
    metrics.record("a", 200);
    metrics.record("a", 200);
    metrics.record("b", 200);
    metrics.record("a", 200);
    const requests = (await seriesOf(registry)).filter((s) => s.metric === "gateway_key_requests_total");
    assert.deepEqual(
      requests.map((s) => [s.key, s.value]),
      [
        ["a", 1],
        [OTHER_KEYS, 3],
      ],
    );
  });

  it("never loses a request or a token, never lowers the total, and holds at most its bound plus (other)", async () => {
    // Valid key names, "other" among them: it must not share the series of the keys folded away.
    const names = ["a", "b", "c", "other", "ci/job+1", "x@y:z", "with space", "d.e_f-g"];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(
          fc.record({
            key: fc.constantFrom(...names),
            status: fc.constantFrom(200, 429, 500),
            prompt: fc.nat(100),
            completion: fc.nat(100),
          }),
          { maxLength: 60 },
        ),
        async (maxKeys, uses) => {
          const registry = new Registry();
          const metrics = new KeyMetrics(registry, maxKeys);
          let before = 0;
          for (const [index, use] of uses.entries()) {
            metrics.record(use.key, use.status, use.prompt, use.completion);
            const series = await seriesOf(registry);
            const seen = uses.slice(0, index + 1);
            const requests = total(series, "gateway_key_requests_total");
            assert.equal(requests, seen.length);
            assert.ok(requests >= before);
            before = requests;
            for (const status of ["200", "429", "500"])
              assert.equal(
                total(series, "gateway_key_requests_total", status),
                seen.filter((u) => String(u.status) === status).length,
              );
            assert.equal(
              total(series, "gateway_key_tokens_total", "prompt"),
              seen.reduce((sum, u) => sum + u.prompt, 0),
            );
            assert.equal(
              total(series, "gateway_key_tokens_total", "completion"),
              seen.reduce((sum, u) => sum + u.completion, 0),
            );
            const keys = new Set(series.map((s) => s.key));
            assert.ok(keys.size <= maxKeys + 1, [...keys].join(" "));
            assert.ok(keys.has(use.key), "the key used last has its own series");
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("holds 1,000 key names and (other) under a churn of 2,500 keys", async () => {
    const registry = new Registry();
    const metrics = new KeyMetrics(registry);
    for (let job = 0; job < 2500; job++) metrics.record(`ci-job-${job}`, 200, 1);
    const series = await seriesOf(registry);
    const keys = new Set(series.map((s) => s.key));
    assert.equal(keys.size, 1001);
    assert.ok(keys.has("ci-job-2499") && keys.has(OTHER_KEYS) && !keys.has("ci-job-1499"));
    assert.equal(total(series, "gateway_key_requests_total"), 2500);
    assert.equal(total(series, "gateway_key_tokens_total"), 2500);
  });

  it("gives the highest spends a spend series of their own and sums the rest in (other)", () => {
    assert.deepEqual(
      spendSeries(
        [
          { name: "b", usd: 1 },
          { name: "a", usd: 1 },
          { name: "big", usd: 5 },
          { name: "small", usd: 0.5 },
          { name: "none", usd: 0 },
        ],
        3,
      ),
      [
        { key: "big", usd: 5 },
        { key: "a", usd: 1 },
        { key: "b", usd: 1 },
        { key: OTHER_KEYS, usd: 0.5 },
      ],
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.record({ name: fc.string(), usd: fc.integer({ min: 0, max: 10_000 }) })),
        (maxKeys, spends) => {
          const series = spendSeries(spends, maxKeys);
          assert.ok(series.length <= maxKeys + 1);
          assert.equal(
            series.reduce((sum, s) => sum + s.usd, 0),
            spends.reduce((sum, s) => sum + s.usd, 0),
          );
        },
      ),
    );
  });
});
