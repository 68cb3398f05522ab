// `npm run bench gateway-queue`: how well the gateway's queue keeps a capacity-limited backend busy. N requests
// (1,000) arrive at once in front of one backend with `max_concurrent = C` (8) that takes S ms (20) per request, so
// N − C of them wait in the queue. The ideal is the backend never idle: ceil(N / C) · S. Reported: throughput against
// that ideal, the backend's peak concurrency (must never exceed C), and the queue's own cost per request — compared
// with a baseline where the same C-at-a-time load comes from C client workers and nothing queues in the gateway, and
// measured in process without HTTP (in-process.ts). The gateway runs from dist/ as deployed; the backend runs in its
// own process (upstream.ts); the load generator is this process. Nothing is pinned: read the ratios.
// Flags: --requests N (1000) --concurrent C (8) --service-ms S (20) --rounds R (1)

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePort, type ManagedProcess, startProcess } from "@switchboard/testkit";
import { Agent, request } from "undici";
import { cpuTicks } from "../gateway/run.ts";
import { median } from "../gateway/stats.ts";
import { serviceBin } from "../service-bin.ts";
import { queueCostMicros } from "./in-process.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "1000" },
    concurrent: { type: "string", default: "8" },
    "service-ms": { type: "string", default: "20" },
    rounds: { type: "string", default: "1" },
  },
});
const total = Number(values.requests);
const slots = Number(values.concurrent);
const serviceMs = Number(values["service-ms"]);
const rounds = Number(values.rounds);
const log = (line: string) => console.log(`[bench] ${line}`);

const BODY = JSON.stringify({ model: "queued-model", messages: [{ role: "user", content: "hello" }] });

/** The backend, in its own process: `serviceMs` per chat request; reports (and resets) its peak concurrency. */
async function startUpstream(): Promise<{ child: ManagedProcess; url: string; peak: () => Promise<number> }> {
  const child = await startProcess({
    name: "upstream",
    command: process.execPath,
    args: ["--import", "tsx", join(root, "bench/gateway-queue/upstream.ts"), String(serviceMs)],
    cwd: root,
    ready: { line: /upstream listening on/ },
    timeoutMs: 30_000,
  });
  const url = child.listeningUrl;
  if (url === undefined) throw new Error("the upstream did not say where it listens");
  return {
    child,
    url,
    peak: async () => Number(await (await request(`${url}/peak`)).body.text()),
  };
}

async function startGateway(upstreamUrl: string, limit: number | undefined, dirs: string[]) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "switchboard-queue-bench-"));
  dirs.push(dir);
  const file = join(dir, "gateway.toml");
  writeFileSync(
    file,
    [
      "[server]",
      `port = ${port}`,
      "[logging]",
      'level = "warn"',
      "[health_check]",
      "interval_seconds = 3600",
      "[queue]",
      `max_size = ${total * 2}`,
      "max_wait_seconds = 600",
      "[[backends]]",
      'name = "limited"',
      `url = "${upstreamUrl}"`,
      'type = "generic"',
      limit === undefined ? "" : `max_concurrent = ${limit}`,
    ].join("\n"),
  );
  const child = await startProcess({
    name: "gateway",
    command: process.execPath,
    args: [serviceBin(root, "gateway"), "serve", "-c", file],
    cwd: root,
    ready: { port },
    timeoutMs: 30_000,
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

async function post(agent: Agent, url: string): Promise<void> {
  const response = await request(`${url}/v1/chat/completions`, {
    method: "POST",
    dispatcher: agent,
    headers: { "content-type": "application/json" },
    body: BODY,
  });
  await response.body.arrayBuffer();
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
}

interface Run {
  ms: number;
  cpuMs: number;
  peak: number;
}

/** All requests at once: the gateway queues what the backend cannot take. */
async function queuedRun(gateway: { child: ManagedProcess; url: string }, peak: () => Promise<number>): Promise<Run> {
  const agent = new Agent({ connections: total + 10, pipelining: 0 });
  const cpuBefore = cpuTicks(gateway.child.pid);
  const started = performance.now();
  await Promise.all(Array.from({ length: total }, () => post(agent, gateway.url)));
  const ms = performance.now() - started;
  const cpuMs = (cpuTicks(gateway.child.pid) - cpuBefore) * 10;
  await agent.close();
  return { ms, cpuMs, peak: await peak() };
}

/** The same concurrency at the backend from C client workers; nothing waits in the gateway. */
async function workerRun(gateway: { child: ManagedProcess; url: string }, peak: () => Promise<number>): Promise<Run> {
  const agent = new Agent({ connections: slots + 2 });
  let next = 0;
  const cpuBefore = cpuTicks(gateway.child.pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: slots }, async () => {
      while (next < total) {
        next++;
        await post(agent, gateway.url);
      }
    }),
  );
  const ms = performance.now() - started;
  const cpuMs = (cpuTicks(gateway.child.pid) - cpuBefore) * 10;
  await agent.close();
  return { ms, cpuMs, peak: await peak() };
}

const upstream = await startUpstream();
const dirs: string[] = [];
const limited = await startGateway(upstream.url, slots, dirs);
const open = await startGateway(upstream.url, undefined, dirs);
const ideal = Math.ceil(total / slots) * serviceMs;
log(`${total} requests, backend max_concurrent ${slots}, ${serviceMs} ms each: ideal ${ideal} ms`);
const queued: Run[] = [];
const workers: Run[] = [];
try {
  // Warm-up: connections, JIT.
  await queuedRun(limited, upstream.peak);
  await workerRun(open, upstream.peak);
  for (let round = 1; round <= rounds; round++) {
    await upstream.peak(); // resets it
    const q = await queuedRun(limited, upstream.peak);
    queued.push(q);
    log(
      `round ${round} queued (gateway queue):  ${Math.round(q.ms)} ms, peak at backend ${q.peak}, gateway CPU ${q.cpuMs} ms`,
    );
    await upstream.peak();
    const w = await workerRun(open, upstream.peak);
    workers.push(w);
    log(
      `round ${round} ${slots} client workers:  ${Math.round(w.ms)} ms, peak at backend ${w.peak}, gateway CPU ${w.cpuMs} ms`,
    );
  }
  const stats = (await (await request(`${limited.url}/v1/stats`)).body.json()) as {
    queue: { queued: number; dispatched: number; average_wait_ms: number };
  };
  const q = median(queued.map((run) => run.ms));
  const w = median(workers.map((run) => run.ms));
  const qCpu = median(queued.map((run) => run.cpuMs));
  const wCpu = median(workers.map((run) => run.cpuMs));
  const peak = Math.max(...queued.map((run) => run.peak));
  const rate = (ms: number) => Math.round((total / ms) * 1000);
  console.log("");
  console.log("| run | time (ms) | req/s | of ideal | backend peak | gateway CPU µs/req |");
  console.log("|---|---:|---:|---:|---:|---:|");
  console.log(`| ideal (backend never idle) | ${ideal} | ${rate(ideal)} | 100 % | ${slots} | |`);
  console.log(
    `| ${total} at once, gateway queue | ${Math.round(q)} | ${rate(q)} | ${Math.round((ideal / q) * 100)} % | ${peak} | ${Math.round((qCpu / total) * 1000)} |`,
  );
  console.log(
    `| ${slots} client workers, no queue | ${Math.round(w)} | ${rate(w)} | ${Math.round((ideal / w) * 100)} % | ${Math.max(...workers.map((run) => run.peak))} | ${Math.round((wCpu / total) * 1000)} |`,
  );
  console.log("");
  // Slot time the backend spent idle, per request: the hand-over from one request to the next.
  const idlePerRequest = ((q - ideal) * slots) / total;
  log(`backend idle per request (slot hand-over, queued run): ${idlePerRequest.toFixed(2)} ms`);
  log(
    `gateway CPU per request, queued run − worker run: ${Math.round(((qCpu - wCpu) / total) * 1000)} µs (includes holding ${total} connections at once)`,
  );
  log(
    `the queue's own work per request (enter, deadline timer, events, routing again, dispatch; in process): ${queueCostMicros(total, slots).toFixed(2)} µs`,
  );
  log(
    `queue stats: ${stats.queue.queued} queued, ${stats.queue.dispatched} dispatched, average wait ${stats.queue.average_wait_ms} ms`,
  );
  if (peak > slots) {
    console.error(`the backend saw ${peak} requests at once; max_concurrent is ${slots}`);
    process.exitCode = 1;
  }
} finally {
  await Promise.all([limited.child.stop(3_000), open.child.stop(3_000)]);
  await upstream.child.stop(3_000);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
