// Preloaded into each service the bench starts (node --import): measures the service's own event-loop delay, which
// CPU starvation on a busy machine inflates far less than a round trip from outside does. On SIGUSR2 it prints
// "loop-delay-max-ms=<ms>" (the longest delay since the previous report) and starts over.
import { monitorEventLoopDelay } from "node:perf_hooks";

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
let report = 0;
process.on("SIGUSR2", () => {
  process.stderr.write(`loop-delay-max-ms=${(histogram.max / 1e6).toFixed(1)} #${report++}\n`);
  histogram.reset();
});
