import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Registry } from "prom-client";
import { registerProcessGauges } from "../src/process-gauges.ts";

const names = {
  service: "sample",
  cpuSeconds: "sample_cpu_seconds_total",
  residentMemory: "sample_resident_memory_bytes",
  eventLoopDelay: "sample_event_loop_delay_seconds",
};

function value(text: string, series: string): number {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  assert.ok(line, `no series ${series} in:\n${text}`);
  return Number(line.slice(series.length + 1));
}

test("the process gauges publish CPU, memory, loop delay and active resources under the service's names", async () => {
  const registry = new Registry();
  registerProcessGauges(registry, names);
  // Work and a timer between scrapes, so that each figure has something to show.
  let spin = 0;
  for (let i = 0; i < 2e6; i++) spin += i % 7;
  assert.ok(spin > 0);
  const timer = setInterval(() => {}, 1000);
  await sleep(30);
  const text = await registry.metrics();
  clearInterval(timer);

  assert.match(text, /# HELP sample_cpu_seconds_total CPU time the sample process used/);
  assert.ok(value(text, "sample_cpu_seconds_total") > 0);
  assert.ok(value(text, "sample_resident_memory_bytes") > 1e6);
  for (const statistic of ["p50", "p99", "max"]) {
    assert.ok(value(text, `sample_event_loop_delay_seconds{statistic="${statistic}"}`) >= 0);
  }
  assert.ok(value(text, 'nodejs_active_resources{type="Timeout"}') >= 1);
});

test("a resource type seen once stays at 0 instead of vanishing, and CPU time only grows", async () => {
  const registry = new Registry();
  registerProcessGauges(registry, names);
  const immediate = setImmediate(() => {});
  const first = await registry.metrics();
  clearImmediate(immediate);
  const second = await registry.metrics();
  assert.ok(value(first, 'nodejs_active_resources{type="Immediate"}') >= 1);
  assert.equal(value(second, 'nodejs_active_resources{type="Immediate"}'), 0);
  assert.ok(value(second, "sample_cpu_seconds_total") >= value(first, "sample_cpu_seconds_total"));
});
