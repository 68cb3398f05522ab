// The floor: a Node process that does nothing but publish the same process metrics as the bridge (the bridge's own
// registerProcessMetrics) on GET /metrics, sampled like the services. Its slopes are what sampling and an idle
// Node cost; a service's slope is judged against them. Prints "baseline listening on http://127.0.0.1:PORT".
import { createServer } from "node:http";
import { processMetricsRegistry } from "../../packages/bridge/src/status/process-metrics.ts";

const registry = processMetricsRegistry();
const server = createServer((request, response) => {
  request.resume();
  if (request.url !== "/metrics") {
    response.writeHead(404).end();
    return;
  }
  registry.metrics().then(
    (body) => response.writeHead(200, { "content-type": registry.contentType }).end(body),
    () => response.writeHead(500).end(),
  );
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(`baseline listening on http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
