// The bridge process's own health on /metrics, under prom-client's standard names (process_*, nodejs_*), so that
// a dashboard for any Node service reads it and a soak test can see memory or handles grow. Only the few that
// matter: prom-client's default set also names gauges with a `_total` suffix, which promtool's lint rejects.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Counter, Gauge, Registry } from "prom-client";

export function registerProcessMetrics(registry: Registry): void {
  const registers = [registry];
  let lastCpu = process.cpuUsage();
  new Counter({
    name: "process_cpu_seconds_total",
    help: "CPU time the bridge process used, user and system.",
    registers,
    collect() {
      const now = process.cpuUsage();
      this.inc(Math.max(0, (now.user - lastCpu.user + now.system - lastCpu.system) / 1e6));
      lastCpu = now;
    },
  });
  new Gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory of the bridge process.",
    registers,
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  const heap = (name: string, help: string, read: (memory: NodeJS.MemoryUsage) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read(process.memoryUsage()));
      },
    });
  heap("nodejs_heap_size_used_bytes", "JavaScript heap in use.", (memory) => memory.heapUsed);
  heap("nodejs_heap_size_total_bytes", "JavaScript heap reserved.", (memory) => memory.heapTotal);
  heap(
    "nodejs_external_memory_bytes",
    "Memory outside the heap held by JavaScript objects (buffers).",
    (m) => m.external,
  );
  registerActiveResources(registry);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  new Gauge({
    name: "nodejs_eventloop_delay_seconds",
    help: "Event-loop delay since the previous scrape, by statistic (p50, p99, max).",
    labelNames: ["statistic"],
    registers,
    collect() {
      this.set({ statistic: "p50" }, delay.percentile(50) / 1e9);
      this.set({ statistic: "p99" }, delay.percentile(99) / 1e9);
      this.set({ statistic: "max" }, delay.max / 1e9);
      delay.reset();
    },
  });
}

/** A registry with these metrics alone: what a process with nothing else to publish serves (bench/soak's baseline). */
export function processMetricsRegistry(): Registry {
  const registry = new Registry();
  registerProcessMetrics(registry);
  return registry;
}

/**
 * `nodejs_active_resources{type}`: what keeps the event loop alive (sockets, servers, timers, file requests), by
 * type, from `process.getActiveResourcesInfo()`. A count that grows under a steady load is a leak of that type.
 */
function registerActiveResources(registry: Registry): void {
  const seen = new Set<string>();
  new Gauge({
    name: "nodejs_active_resources",
    help: "Resources keeping the event loop alive (handles, requests, timers), by type.",
    labelNames: ["type"],
    registers: [registry],
    collect() {
      const counts = new Map<string, number>();
      for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
      // A type seen once stays, at 0, so that its series does not vanish between scrapes.
      for (const type of counts.keys()) seen.add(type);
      for (const type of seen) this.set({ type }, counts.get(type) ?? 0);
    },
  });
}
