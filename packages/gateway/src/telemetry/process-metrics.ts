import { registerProcessGauges } from "@switchboard/common/process-gauges";
import { Gauge, type Registry } from "prom-client";

/** The process's own health: CPU, memory, event-loop delay, what keeps the loop alive, start time. */
export function registerProcessMetrics(registry: Registry): void {
  const registers = [registry];
  registerProcessGauges(registry, {
    service: "gateway",
    cpuSeconds: "gateway_process_cpu_seconds_total",
    residentMemory: "gateway_process_resident_memory_bytes",
    eventLoopDelay: "gateway_event_loop_delay_seconds",
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
}
