// The bridge process's own health on /metrics, under prom-client's standard names (process_*, nodejs_*), so that
// a dashboard for any Node service reads it and a soak test can see memory or handles grow.
import { registerProcessGauges } from "@switchboard/common/process-gauges";
import { Gauge, Registry } from "prom-client";

export function registerProcessMetrics(registry: Registry): void {
  registerProcessGauges(registry, {
    service: "bridge",
    cpuSeconds: "process_cpu_seconds_total",
    residentMemory: "process_resident_memory_bytes",
    eventLoopDelay: "nodejs_eventloop_delay_seconds",
  });
  const heap = (name: string, help: string, read: (memory: NodeJS.MemoryUsage) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
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
}

/** A registry with these metrics alone: what a process with nothing else to publish serves (bench/soak's baseline). */
export function processMetricsRegistry(): Registry {
  const registry = new Registry();
  registerProcessMetrics(registry);
  return registry;
}
