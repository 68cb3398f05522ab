// Preloaded into each service the bench starts (node --import): measures how long the service itself blocks its event
// loop. Two numbers, because on a shared machine a delay can be the service's own work or the OS running others:
// - loop delay: monitorEventLoopDelay's longest delay (wall clock, inflated by CPU starvation);
// - busy: the longest time the main thread really ran on a CPU between two 1 ms timer ticks, read from the kernel's
//   per-thread schedstat (Linux), which does not count time spent waiting for a CPU. That is the stall the service
//   causes, whatever else the machine does.
// It also keeps the longest garbage-collection pause (a gc PerformanceObserver), which is part of a busy span.
// On SIGUSR2 it prints "loop-delay-max-ms=<ms> busy-max-ms=<ms> gc-max-ms=<ms> #<n>" for the time since the previous
// report.
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();

// The main thread's id is the process id; the first field is its time on a CPU, in nanoseconds.
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;
function onCpuNs(): number {
  try {
    return Number(readFileSync(SCHEDSTAT, "latin1").split(" ")[0]);
  } catch {
    return Number.NaN;
  }
}

let lastOnCpu = onCpuNs();
let busyMaxNs = 0;
setInterval(() => {
  const now = onCpuNs();
  busyMaxNs = Math.max(busyMaxNs, now - lastOnCpu);
  lastOnCpu = now;
}, 1).unref();

let gcMaxMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMaxMs = Math.max(gcMaxMs, entry.duration);
}).observe({ entryTypes: ["gc"] });

let report = 0;
process.on("SIGUSR2", () => {
  const busy = Number.isFinite(busyMaxNs) ? (busyMaxNs / 1e6).toFixed(1) : "nan";
  process.stderr.write(
    `loop-delay-max-ms=${(histogram.max / 1e6).toFixed(1)} busy-max-ms=${busy} gc-max-ms=${gcMaxMs.toFixed(1)} #${report++}\n`,
  );
  histogram.reset();
  busyMaxNs = 0;
  gcMaxMs = 0;
});
