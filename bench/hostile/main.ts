// `npm run bench hostile`: how long can one hostile request within the body limit block a service's event loop?
// Starts the gateway (in front of the bench's fake upstream) and the bridge (two api accounts) as child processes.
// For each service: a baseline phase of normal traffic alone, then one phase per hostile case (4 hostile requests in
// flight, repeated) with the same normal traffic. Throughout, a worker thread polls the service's health URL every
// 2 ms: the longest answer time is the longest event-loop stall seen from outside. Prints a table with ratios against
// the baseline. Every phase is run --runs times (3): the table shows medians across runs and the verdict is judged on
// them, because a stall a hostile request causes recurs in every run while a spike of the machine does not.
// Flags: --duration S (3) --runs N (3) --concurrency N (4) --services gateway,bridge --cases NAME,NAME (substrings)
// --node-flags="FLAGS" (added to each service's node, e.g. --node-flags="--cpu-prof --cpu-prof-dir=/tmp/prof" to see a long turn)

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { type ManagedProcess, startProcess } from "@switchboard/testkit";
import { Pool } from "undici";
import { serviceBin } from "../service-bin.ts";
import { ANTHROPIC_MODEL, bridgeCases, gatewayCases, type HostileCase, NORMAL, type Service } from "./payloads.ts";
import { type PhaseResult, renderReport } from "./report.ts";

const GOAL_MS = 20;
const PROBE_INTERVAL_MS = 2;
const here = fileURLToPath(new URL(".", import.meta.url));
const root = resolve(here, "../..");

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "3" },
    runs: { type: "string", default: "3" },
    concurrency: { type: "string", default: "4" },
    services: { type: "string", default: "gateway,bridge" },
    cases: { type: "string" },
    "node-flags": { type: "string", default: "" },
  },
});
const durationMs = Number(values.duration) * 1000;
const runs = Math.max(1, Number(values.runs));
const concurrency = Number(values.concurrency);
const services = new Set(values.services.split(",") as Service[]);
const wantedCases = values.cases?.split(",");

const running: ManagedProcess[] = [];

interface RunningService {
  url: string;
  process: ManagedProcess;
}
const dir = mkdtempSync(join(tmpdir(), "bench-hostile-"));
const log = (line: string) => console.log(`[bench] ${line}`);

async function start(
  name: string,
  args: string[],
  readyLine: string,
  env?: NodeJS.ProcessEnv,
): Promise<ManagedProcess> {
  const child = await startProcess({
    name,
    command: process.execPath,
    args,
    cwd: root,
    env: env && { ...process.env, ...env },
    ready: { line: readyLine },
    timeoutMs: 30_000,
  });
  running.push(child);
  return child;
}

/** The first http://host:port a process printed after `marker`. */
function urlAfter(child: ManagedProcess, marker: string): string {
  const match = new RegExp(`${marker} (http://[\\w.\\[\\]:]+:\\d+)`).exec(child.output);
  if (!match) throw new Error(`${child.name} did not print "${marker} http://...":\n${child.tail()}`);
  return match[1]!;
}

function rssMb(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

/** Node flags that load the event-loop monitor into a service. */
const MONITOR = [
  ...values["node-flags"].split(" ").filter(Boolean),
  "--import",
  "tsx",
  "--import",
  new URL("./loop-monitor.ts", import.meta.url).href,
];

/** Reports asked of each service so far: the monitor numbers them, and the kept output is too short to count them. */
const reportsAsked = new Map<number, number>();

/** The service's own longest event-loop delay, busy span and GC pause since the last call (see loop-monitor.ts). */
async function loopDelay(child: ManagedProcess): Promise<{ delayMs?: number; busyMs?: number; gcMs?: number }> {
  const reports = reportsAsked.get(child.pid) ?? 0;
  reportsAsked.set(child.pid, reports + 1);
  process.kill(child.pid, "SIGUSR2");
  const line = await child
    .waitForLine(new RegExp(`^loop-delay-max-ms=[\\d.]+ busy-max-ms=[\\w.]+ gc-max-ms=[\\d.]+ #${reports}$`), 10_000)
    .catch(() => undefined);
  const number = (name: string) => {
    const value = Number(line?.match(new RegExp(`${name}=([\\d.]+)`))?.[1]);
    return Number.isFinite(value) ? value : undefined;
  };
  return { delayMs: number("loop-delay-max-ms"), busyMs: number("busy-max-ms"), gcMs: number("gc-max-ms") };
}

async function startGateway(): Promise<RunningService> {
  const upstream = await start(
    "upstream",
    ["--import", "tsx", join(root, "bench/gateway/upstream.ts"), "0"],
    "upstream listening on",
  );
  // A translated backend too: its requests are re-encoded in the provider's format, not forwarded as they came.
  const anthropic = await start(
    "anthropic",
    ["--import", "tsx", join(root, "packages/testkit/src/llm/cli.ts"), "--kind", "anthropic"].concat([
      "--model",
      ANTHROPIC_MODEL,
      "--api-key",
      "bench-key",
    ]),
    "listening on",
  );
  const config = join(dir, "gateway.toml");
  writeFileSync(
    config,
    `[server]\nport = 0\n[[backends]]\nname = "bench-upstream"\nurl = "${urlAfter(upstream, "listening on")}"\ntype = "generic"\n` +
      `[[backends]]\nname = "bench-anthropic"\nurl = "${urlAfter(anthropic, "listening on")}"\ntype = "anthropic"\n` +
      `api_key_env = "BENCH_ANTHROPIC_KEY"\n`,
  );
  const gateway = await start(
    "gateway",
    [...MONITOR, serviceBin(root, "gateway"), "serve", "-c", config, "-l", "info"],
    "listening on",
    { BENCH_ANTHROPIC_KEY: "bench-key" },
  );
  return { url: urlAfter(gateway, "listening on"), process: gateway };
}

async function startBridge(): Promise<RunningService> {
  const config = join(dir, "bridge.toml");
  writeFileSync(
    config,
    `[api.in]\nBindAddress = "127.0.0.1:0"\nBuffer = 1000\n[api.out]\nBindAddress = "127.0.0.1:0"\nBuffer = 1000\n` +
      `[[gateway]]\nname = "bench"\nenable = true\n` +
      `[[gateway.inout]]\naccount = "api.in"\nchannel = "api"\n[[gateway.inout]]\naccount = "api.out"\nchannel = "api"\n`,
  );
  const bridge = await start("bridge", [...MONITOR, serviceBin(root, "bridge"), "-conf", config], "bridge started");
  return { url: urlAfter(bridge, "api.in listening on"), process: bridge };
}

/** A client loop on its own thread (see client-worker.ts). */
function startClient(url: string, body: Buffer | undefined, intervalMs: number) {
  // Node 20 cannot start a worker from a .ts file directly; a one-line script imports it through tsx instead.
  const script = new URL("./client-worker.ts", import.meta.url).href;
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(script)}); })`;
  const worker = new Worker(bootstrap, { eval: true, workerData: { url, body: body?.toString(), intervalMs } });
  const ready = new Promise<void>((resolvePromise, reject) => {
    worker.once("message", () => resolvePromise());
    worker.once("error", reject);
  });
  const result = ready.then(
    () =>
      new Promise<{ latencies: number[]; failures: number }>((resolvePromise, reject) => {
        worker.once("message", resolvePromise);
        worker.once("error", reject);
      }),
  );
  return {
    ready,
    start: () => worker.postMessage("start"),
    async stop() {
      worker.postMessage("stop");
      const outcome = await result;
      await worker.terminate();
      return outcome;
    },
  };
}

async function runPhase(
  service: Service,
  base: string,
  child: ManagedProcess,
  hostile: HostileCase | undefined,
): Promise<PhaseResult> {
  const normal = NORMAL[service];
  const origin = new URL(base).origin;
  const hostilePool = new Pool(origin, { connections: concurrency });
  const probe = startClient(`${origin}${normal.health}`, undefined, PROBE_INTERVAL_MS);
  const normalTraffic = startClient(`${origin}${normal.path}`, normal.body, 0);
  await Promise.all([probe.ready, normalTraffic.ready]);
  await loopDelay(child); // starts the service's own measurement over
  probe.start();
  normalTraffic.start();
  const deadline = performance.now() + durationMs;
  const result: PhaseResult = {
    service,
    name: hostile?.name ?? "baseline",
    probe: [],
    normal: [],
    normalErrors: 0,
    hostileSent: 0,
    hostileStatuses: new Map(),
    rssMb: undefined,
    loopDelayMs: undefined,
    busyMs: undefined,
    gcMs: undefined,
  };
  const headers = { "content-type": "application/json" };
  const hostileLoop = async (attack: HostileCase) => {
    while (performance.now() < deadline) {
      result.hostileSent++;
      let status: string;
      try {
        const response = await hostilePool.request({
          path: attack.path,
          method: "POST",
          headers,
          body: attack.body,
          headersTimeout: 120_000,
          bodyTimeout: 120_000,
        });
        await response.body.dump();
        status = String(response.statusCode);
      } catch (error) {
        status = (error as NodeJS.ErrnoException).code ?? "error";
      }
      result.hostileStatuses.set(status, (result.hostileStatuses.get(status) ?? 0) + 1);
    }
  };
  if (hostile) await Promise.all(Array.from({ length: concurrency }, () => hostileLoop(hostile)));
  else await new Promise((resolvePromise) => setTimeout(resolvePromise, durationMs));
  result.probe = (await probe.stop()).latencies;
  const normalOutcome = await normalTraffic.stop();
  result.normal = normalOutcome.latencies;
  result.normalErrors = normalOutcome.failures;
  const own = await loopDelay(child);
  result.loopDelayMs = own.delayMs;
  result.busyMs = own.busyMs;
  result.gcMs = own.gcMs;
  result.rssMb = rssMb(child.pid);
  await hostilePool.close();
  return result;
}

async function main(): Promise<void> {
  const results: PhaseResult[] = [];
  const plans: [Service, () => Promise<RunningService>, HostileCase[]][] = [
    ["gateway", startGateway, gatewayCases()],
    ["bridge", startBridge, bridgeCases()],
  ];
  for (const [service, startService, cases] of plans) {
    if (!services.has(service)) continue;
    const { url, process: child } = await startService();
    log(`${service} at ${url} (pid ${child.pid})`);
    await runPhase(service, url, child, undefined); // warm-up
    const chosen = cases.filter((c) => !wantedCases || wantedCases.some((w) => c.name.includes(w)));
    for (let run = 1; run <= runs; run++) {
      for (const hostile of [undefined, ...chosen]) {
        const phase = await runPhase(service, url, child, hostile);
        results.push(phase);
        log(
          `${service} ${phase.name} (run ${run}/${runs}): longest stall ${Math.max(...phase.probe).toFixed(1)} ms, own longest busy ${phase.busyMs ?? "?"} ms, ${phase.normal.length} normal requests` +
            (hostile
              ? `, ${phase.hostileSent} hostile (${(hostile.body.length / 1024 / 1024).toFixed(2)} MB each)`
              : ""),
        );
      }
    }
    // Each service is measured alone: the next one's phases must not share the machine with this one's leftovers.
    await stopAll();
  }
  console.log(`\n${renderReport(results, GOAL_MS)}`);
  console.log(
    `\n${runs} runs of ${durationMs / 1000} s per phase (medians across runs), ${concurrency} hostile requests in flight, health polled every ${PROBE_INTERVAL_MS} ms from a worker thread; Node ${process.version}`,
  );
}

async function stopAll(): Promise<void> {
  await Promise.all(running.splice(0).map((child) => child.stop(3_000)));
}

try {
  await main();
} finally {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
}
