// `npm run bench gateway`: the same closed-loop load (non-streaming and streaming, 1 and 32 connections) applied
// directly to a trivially fast fake upstream, through a minimal Node proxy, through Switchboard's gateway and through
// the Portkey gateway, in one run. Servers share core 0, the load generator runs on core 1 (taskset).
// Flags: --duration S (5) --warmup S (1.5) --rounds N (1) --connections 1,32 --targets direct,proxy,switchboard,portkey
//        --nice=N (run every process the bench starts at this nice value, e.g. --nice=-10 on a shared machine)
//        --json FILE (write every result) --profile DIR (CPU-profile Switchboard and the proxy) --no-pin
//        --cases json,stream
//        --before DIR (also measure the gateway built in DIR, a checkout of an earlier commit: before/after in one run)
//        --max-noise PCT (25) --retries N (1): a run during which other processes used more than PCT % of a core is
//        repeated up to N times (this machine is shared)
// Each round runs the targets in another order (rotated by one): in a fixed order the last target of every round was
// measured against an upstream that had served the others just before (its stream p99 25-37 ms against 8-11 ms for
// the same build in the middle slot), so a before/after read the order, not the code.
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePort, type ManagedProcess, startProcess } from "@switchboard/testkit";
import { measureLoad, nodeCommand, type Pinning, runLoadProcess, settle } from "./run.ts";
import { type CaseResult, machineLine, renderReport, type TargetName } from "./table.ts";
import { chatBody, type StartContext, startPortkey, startSwitchboard, type Target } from "./targets.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "1.5" },
    rounds: { type: "string", default: "1" },
    connections: { type: "string", default: "1,32" },
    targets: { type: "string", default: "direct,proxy,switchboard,portkey" },
    json: { type: "string" },
    profile: { type: "string" },
    "no-pin": { type: "boolean", default: false },
    nice: { type: "string" },
    "max-noise": { type: "string", default: "25" },
    retries: { type: "string", default: "1" },
    cases: { type: "string", default: "json,stream" },
    before: { type: "string" },
  },
});
const durationMs = Number(values.duration) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const rounds = Number(values.rounds);
const connectionCounts = values.connections.split(",").map(Number);
const maxNoise = Number(values["max-noise"]);
const streamModes = values.cases.split(",").map((name) => name === "stream");
const maxRetries = Number(values.retries);
const wanted = new Set(values.targets.split(",") as TargetName[]);
if (![durationMs, warmupMs, rounds, ...connectionCounts].every((n) => Number.isFinite(n) && n >= 0)) {
  console.error("--duration, --warmup, --rounds and --connections take numbers");
  process.exit(2);
}

const hasTaskset = spawnSync("taskset", ["-c", "0", "true"]).status === 0;
const pin: Pinning = {
  ...(hasTaskset && !values["no-pin"] ? { servers: "0", load: "1" } : {}),
  ...(values.nice !== undefined ? { nice: Number(values.nice) } : {}),
};
const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).stdout.trim() || "?";
const log = (line: string) => console.log(`[bench] ${line}`);
const running: ManagedProcess[] = [];
const temporaryDirs: string[] = [];

async function stopAll(): Promise<void> {
  await Promise.all(running.map((child) => child.stop(3_000)));
  for (const dir of temporaryDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void stopAll().then(() => process.exit(130));
  });
}

/** Starts a server pinned to the servers' core and waits for its port. */
async function startServer(name: string, args: string[], port: number, cwd = root): Promise<ManagedProcess> {
  const [command, fullArgs] = nodeCommand(pin, pin.servers, args);
  const child = await startProcess({ name, command, args: fullArgs, cwd, ready: { port }, timeoutMs: 30_000 });
  running.push(child);
  return child;
}

/** With --profile DIR, node flags that write a CPU profile of the process into DIR/<name> when it exits. */
function profileFlags(name: string): string[] {
  return values.profile ? ["--cpu-prof", `--cpu-prof-dir=${join(resolve(values.profile), name)}`] : [];
}

async function main(): Promise<void> {
  log(`${machineLine()} · commit ${commit}`);
  log(`pinning: ${pin.servers ? `servers on core ${pin.servers}, load generator on core ${pin.load}` : "none"}`);
  if (pin.nice !== undefined) log(`every process the bench starts runs at nice ${pin.nice}`);
  const upstreamPort = await freePort();
  const upstream = await startServer(
    "upstream",
    ["--import", "tsx", join(here, "upstream.ts"), String(upstreamPort)],
    upstreamPort,
  );
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}`;
  const targets: Target[] = [];
  if (wanted.has("direct")) targets.push({ name: "direct", url: upstreamUrl, pids: [upstream.pid] });

  if (wanted.has("proxy")) {
    const port = await freePort();
    const proxy = await startServer(
      "minimal-proxy",
      [...profileFlags("proxy"), "--import", "tsx", join(here, "min-proxy.ts"), String(port), upstreamUrl],
      port,
    );
    targets.push({ name: "proxy", url: `http://127.0.0.1:${port}`, pids: [proxy.pid, upstream.pid] });
  }

  const context: StartContext = { root, startServer, profileFlags, log, temporaryDirs };
  if (values.before) {
    const before = { ...context, root: resolve(values.before) };
    targets.push(await startSwitchboard(before, upstreamUrl, upstream.pid, "before"));
  }
  if (wanted.has("switchboard")) targets.push(await startSwitchboard(context, upstreamUrl, upstream.pid));
  if (wanted.has("portkey")) targets.push(await startPortkey(context, upstreamUrl, upstream.pid));

  // Warm every path up (JIT, connection pools) before anything is measured.
  for (const target of targets) {
    for (const stream of [false, true]) {
      const url = stream ? (target.streamUrl ?? target.url) : target.url;
      if (!url || target.unavailable) continue;
      await runLoadProcess(pin, {
        url: `${url}/v1/chat/completions`,
        body: chatBody(stream),
        headers: target.headers,
        connections: 32,
        durationMs: 2000,
        warmupMs: 0,
      });
    }
  }

  const results: CaseResult[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const stream of streamModes) {
      for (const connections of connectionCounts) {
        for (const target of rotated(targets, round)) {
          const url = stream ? (target.streamUrl ?? target.url) : target.url;
          const caseName = `${stream ? "stream" : "json"} c${connections}`;
          if (!url || target.unavailable) {
            results.push({
              caseName,
              stream,
              connections,
              target: target.name,
              unavailable: target.unavailable ?? target.streamNote,
            });
            continue;
          }
          // On a shared machine another process may steal CPU during a run: such a run is repeated (bounded).
          let measured = await measureOnce(target, url, stream, connections);
          for (let retry = 0; retry < maxRetries && measured.otherCpuPercent > maxNoise; retry++) {
            log(
              `  ${caseName} ${target.name}: other processes used ${measured.otherCpuPercent.toFixed(0)} % CPU; again`,
            );
            measured = await measureOnce(target, url, stream, connections);
          }
          const { result, otherCpuPercent, serverCpuUsPerRequest } = measured;
          log(
            `round ${round + 1} ${caseName} ${target.name}: ${result.requestsPerSecond.toFixed(0)} req/s, ` +
              `p50 ${result.latencyMs.p50.toFixed(3)} ms, p99 ${result.latencyMs.p99.toFixed(3)} ms, ` +
              `server CPU ${serverCpuUsPerRequest.toFixed(0)} µs/req, other CPU ${otherCpuPercent.toFixed(0)} %` +
              (result.errors + result.non2xx + result.invalid > 0
                ? `, errors ${result.errors} non-2xx ${result.non2xx} invalid ${result.invalid}: ${result.firstProblem}`
                : ""),
          );
          results.push({
            caseName,
            stream,
            connections,
            target: target.name,
            result,
            otherCpuPercent,
            serverCpuUsPerRequest,
            note: stream ? target.streamNote : undefined,
          });
        }
      }
    }
  }
  console.log(
    `\n${renderReport(results, { durationMs, warmupMs, rounds, pinned: Boolean(pin.servers), nice: pin.nice })}`,
  );
  if (values.json)
    writeFileSync(values.json, `${JSON.stringify({ machine: machineLine(), commit, results }, null, 2)}\n`);
}

function measureOnce(target: Target, url: string, stream: boolean, connections: number) {
  const pids = stream ? (target.streamPids ?? target.pids) : target.pids;
  return settle(pids).then(() =>
    measureLoad(
      pin,
      {
        url: `${url}/v1/chat/completions`,
        body: chatBody(stream),
        headers: target.headers,
        connections,
        durationMs,
        warmupMs,
        expect: stream ? "data: [DONE]" : '"chat.completion"',
      },
      pids,
    ),
  );
}

/** The targets starting at the round's own place, so that over as many rounds as targets each takes every slot once. */
function rotated<T>(items: readonly T[], round: number): T[] {
  const start = round % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

try {
  await main();
} finally {
  await stopAll();
}
