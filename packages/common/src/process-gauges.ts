// The process's own health on /metrics, the part both services publish alike: CPU time, resident memory, what keeps
// the event loop alive and how late it runs. prom-client's default set names gauges with a `_total` suffix (which
// Prometheus's own lint rejects), so the few that matter are defined here; each service names them its own way.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Counter, Gauge, type Registry } from "prom-client";

export interface ProcessGaugeNames {
  /** The service as its help texts name it ("bridge", "gateway"). */
  service: string;
  cpuSeconds: string;
  residentMemory: string;
  eventLoopDelay: string;
}

export function registerProcessGauges(registry: Registry, names: ProcessGaugeNames): void {
  const registers = [registry];
  let lastCpu = process.cpuUsage();
  new Counter({
    name: names.cpuSeconds,
    help: `CPU time the ${names.service} process used, user and system.`,
    registers,
    collect() {
      const now = process.cpuUsage();
      this.inc(Math.max(0, (now.user - lastCpu.user + now.system - lastCpu.system) / 1e6));
      lastCpu = now;
    },
  });
  new Gauge({
    name: names.residentMemory,
    help: `Resident memory of the ${names.service} process.`,
    registers,
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  registerActiveResources(registers);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  new Gauge({
    name: names.eventLoopDelay,
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

/**
 * `nodejs_active_resources{type}`: what keeps the event loop alive (sockets, servers, timers, file requests), by
 * type, from `process.getActiveResourcesInfo()`. A count that grows under a steady load is a leak of that type.
 */
function registerActiveResources(registers: Registry[]): void {
  const seen = new Set<string>();
  new Gauge({
    name: "nodejs_active_resources",
    help: "Resources keeping the event loop alive (handles, requests, timers), by type.",
    labelNames: ["type"],
    registers,
    collect() {
      const counts = new Map<string, number>();
      for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
      // A type seen once stays, at 0, so that its series does not vanish between scrapes.
      for (const type of counts.keys()) seen.add(type);
      for (const type of seen) this.set({ type }, counts.get(type) ?? 0);
    },
  });
}
