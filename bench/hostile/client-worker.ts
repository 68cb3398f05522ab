// Runs in a worker thread, so that the bench's own work (sending 10 MB bodies) cannot delay it: sends one request
// after another over one keep-alive connection (waiting `intervalMs` between starts) and reports every latency, and
// how many failed, when told to stop. Used for the health probe and for the normal traffic.
import { parentPort, workerData } from "node:worker_threads";
import { Pool } from "undici";

const { url, body, intervalMs } = workerData as { url: string; body: string | undefined; intervalMs: number };
const target = new URL(url);
const pool = new Pool(target.origin, { connections: 1 });
const latencies: number[] = [];
let failures = 0;
let running = false;

// Loading this worker (tsx compiles it) takes a while: the phase starts only once every worker said it is ready.
parentPort?.on("message", (message: string) => {
  running = message === "start";
});
await new Promise<void>((resolve) => {
  parentPort?.once("message", () => resolve());
  parentPort?.postMessage("ready");
});

while (running) {
  const started = performance.now();
  try {
    const response = await pool.request({
      path: target.pathname,
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body,
      headersTimeout: 60_000,
    });
    await response.body.dump();
    if (response.statusCode >= 400) failures++;
  } catch {
    failures++;
  }
  const elapsed = performance.now() - started;
  latencies.push(elapsed);
  if (elapsed < intervalMs) await new Promise((resolve) => setTimeout(resolve, intervalMs - elapsed));
}
await pool.close();
parentPort?.postMessage({ latencies, failures });
