import { monitorEventLoopDelay } from "node:perf_hooks";
import { Counter, Gauge, type Registry } from "prom-client";

/**
 * The process's own health: CPU, memory, event-loop delay, start time. prom-client's default set names gauges with a
 * `_total` suffix (which Prometheus's own lint rejects), so the few that matter are defined here.
 */
export function registerProcessMetrics(registry: Registry): void {
  const registers = [registry];
  let lastCpu = process.cpuUsage();
  new Counter({
    name: "gateway_process_cpu_seconds_total",
    help: "CPU time the gateway process used, user and system.",
    registers,
    collect() {
      const now = process.cpuUsage();
      this.inc(Math.max(0, (now.user - lastCpu.user + now.system - lastCpu.system) / 1e6));
      lastCpu = now;
    },
  });
  new Gauge({
    name: "gateway_process_resident_memory_bytes",
    help: "Resident memory of the gateway process.",
    registers,
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  new Gauge({
    name: "gateway_process_heap_bytes",
    help: "JavaScript heap, by kind (used, total) and memory outside it (external).",
    labelNames: ["kind"],
    registers,
    collect() {
      const memory = process.memoryUsage();
      this.set({ kind: "used" }, memory.heapUsed);
      this.set({ kind: "total" }, memory.heapTotal);
      this.set({ kind: "external" }, memory.external);
    },
  });
  const startTime = Math.round(Date.now() / 1000 - process.uptime());
  new Gauge({
    name: "gateway_process_start_time_seconds",
    help: "When the gateway process started, in seconds since the Unix epoch.",
    registers,
    collect() {
      this.set(startTime);
    },
  });
  // What keeps the event loop alive, by type (sockets, servers, timers): a count that grows under steady load leaks.
  const seenTypes = new Set<string>();
  new Gauge({
    name: "nodejs_active_resources",
    help: "Resources keeping the event loop alive (handles, requests, timers), by type.",
    labelNames: ["type"],
    registers,
    collect() {
      const counts = new Map<string, number>();
      for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
      // A type seen once stays, at 0, so that its series does not vanish between scrapes.
      for (const type of counts.keys()) seenTypes.add(type);
      for (const type of seenTypes) this.set({ type }, counts.get(type) ?? 0);
    },
  });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  new Gauge({
    name: "gateway_event_loop_delay_seconds",
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
