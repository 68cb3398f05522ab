// `npm run bench gateway-streams`: N (5,000) concurrent slow streams (20 chunks 50 ms apart, then [DONE]) through one
// target at a time: Switchboard with its default config, Switchboard with examples/gateway.toml's features, and the
// minimal proxy. Per target and round (a fresh process each): a warm-up of a few hundred streams, RSS read
// (/proc/<pid>/status), then N streams held concurrent by the upstream's barrier while RSS is sampled and the health
// URL polled every 100 ms. Reported: streams correct, RSS growth per stream, the slowest health answer, the upstream's
// peak connections (a pool that capped them would queue streams), and gateway/proxy.
// Flags: --streams N (5000) --rounds R (1) --clients C (2 load processes) --ramp-ms MS (3000: the connections are
//        opened over this time) --spread-ms MS (1000: once all are open, their first chunks are spread over this time)
//        --targets gateway,gateway-features,proxy --heap-snapshot DIR (SIGUSR2 heap snapshots before the run and at
//        its peak, into DIR; compare them with heap-summary.ts. Snapshots stall the target: its health figures and
//        RSS mean nothing then) --profile DIR (V8 CPU profiles of the
//        targets into DIR; summarise with bench/gateway/profile-summary.ts) --node-flags="..." (more flags for the
//        targets' node, e.g. --trace-gc; their output goes to --output)
//        --output DIR (each target's stdout and stderr, e.g. the gateway's log lines, written to DIR/<target>.log)
//        --nice=N (the target at this nice value, e.g. -10, so that other work on a shared machine disturbs /health less)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type ManagedProcess, runToExit, startProcess } from "@switchboard/testkit";
import { median } from "../gateway/stats.ts";
import { HealthPoller, type HealthSummary } from "./health-poller.ts";
import type { UpstreamStats } from "./slow-upstream.ts";
import type { StreamLoad, StreamResult } from "./stream-client.ts";
import { startTarget, TARGET_LABELS, type TargetName } from "./targets.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const { values } = parseArgs({
  options: {
    streams: { type: "string", default: "5000" },
    rounds: { type: "string", default: "1" },
    clients: { type: "string", default: "2" },
    "ramp-ms": { type: "string", default: "3000" },
    "spread-ms": { type: "string", default: "1000" },
    targets: { type: "string", default: "gateway,gateway-features,proxy" },
    "heap-snapshot": { type: "string" },
    profile: { type: "string" },
    "node-flags": { type: "string", default: "" },
    output: { type: "string" },
    nice: { type: "string" },
  },
});
const streams = Number(values.streams);
const rounds = Number(values.rounds);
const clients = Math.max(1, Number(values.clients));
const rampMs = Number(values["ramp-ms"]);
const spreadMs = Number(values["spread-ms"]);
const targets = values.targets.split(",") as TargetName[];
const snapshotDir = values["heap-snapshot"] ? resolve(values["heap-snapshot"]) : undefined;
const profileDir = values.profile ? resolve(values.profile) : undefined;
const nodeFlags = values["node-flags"].split(" ").filter(Boolean);
const outputDir = values.output ? resolve(values.output) : undefined;
const nice = values.nice === undefined ? undefined : Number(values.nice);
if (
  ![streams, rounds, rampMs].every((n) => Number.isFinite(n) && n > 0) ||
  targets.some((t) => !(t in TARGET_LABELS))
) {
  console.error(`--streams, --rounds, --ramp-ms take positive numbers; --targets from ${Object.keys(TARGET_LABELS)}`);
  process.exit(2);
}
const log = (line: string) => console.log(`[bench] ${line}`);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const WARMUP_STREAMS = Math.min(500, streams);
const GOAL_BYTES = 30 * 1024;
const GOAL_HEALTH_MS = 50;

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) * 1024;
}

async function upstreamCall(url: string, path: string, method = "GET"): Promise<string> {
  const response = await fetch(`${url}${path}`, { method });
  return response.text();
}

/** `count` streams from `clients` load processes at once, the upstream holding them until all have arrived. */
async function runStreams(
  upstreamUrl: string,
  load: Omit<StreamLoad, "streams">,
  count: number,
): Promise<StreamResult> {
  const barrier = `streams=${count}&timeout_ms=${load.rampMs + 30_000}&spread_ms=${spreadMs}`;
  await upstreamCall(upstreamUrl, `/__barrier?${barrier}`, "POST");
  const parts = Array.from(
    { length: Math.min(clients, count) },
    (_, i) => Math.floor(count / clients) + (i < count % clients ? 1 : 0),
  );
  const runs = await Promise.all(
    parts.map(async (part) => {
      const options: StreamLoad = { ...load, streams: part };
      const run = await runToExit({
        command: process.execPath,
        args: ["--import", "tsx", join(here, "stream-client.ts"), JSON.stringify(options)],
        timeoutMs: load.timeoutMs + load.rampMs + 30_000,
      });
      const line = run.stdout.trim().split("\n").at(-1) ?? "";
      if (run.code !== 0)
        throw new Error(`stream client failed (${run.code ?? run.signal}): ${run.stderr.slice(-800)}`);
      return JSON.parse(line) as StreamResult;
    }),
  );
  return {
    ok: runs.reduce((sum, run) => sum + run.ok, 0),
    failed: runs.reduce((sum, run) => sum + run.failed, 0),
    problems: runs.flatMap((run) => run.problems).slice(0, 5),
    peakOpen: runs.reduce((sum, run) => sum + run.peakOpen, 0),
    elapsedMs: Math.max(...runs.map((run) => run.elapsedMs)),
  };
}

interface RoundResult {
  streams: StreamResult;
  rssBeforeBytes: number;
  rssPeakBytes: number;
  bytesPerStream: number;
  health: HealthSummary;
  upstream: UpstreamStats;
}

async function measure(name: TargetName, upstreamUrl: string, temporaryDirs: string[]): Promise<RoundResult> {
  const target = await startTarget(name, {
    root,
    upstreamUrl,
    snapshotDir,
    profileDir,
    nodeFlags,
    nice,
    temporaryDirs,
  });
  try {
    const body = JSON.stringify({
      model: target.model,
      messages: [{ role: "user", content: "Write twenty tokens, slowly." }],
      max_tokens: 64,
      stream: true,
    });
    const load = { url: target.url, body, headers: target.headers, rampMs, timeoutMs: 120_000 };
    const warm = await runStreams(upstreamUrl, { ...load, rampMs: 500 }, WARMUP_STREAMS);
    if (warm.failed > 0) throw new Error(`warm-up streams failed: ${warm.problems.join("; ")}`);
    await sleep(1_000);
    await upstreamCall(upstreamUrl, "/__stats");
    const pid = target.process.pid;
    const rssBeforeBytes = rssBytes(pid);
    let rssPeakBytes = rssBeforeBytes;
    const sampler = setInterval(() => {
      rssPeakBytes = Math.max(rssPeakBytes, rssBytes(pid));
    }, 100);
    if (snapshotDir) {
      // A snapshot before the run too: subtracted from the one at peak, it leaves what the streams hold.
      process.kill(pid, "SIGUSR2");
      await sleep(5_000);
    }
    const health = new HealthPoller(target.healthUrl);
    health.start();
    const snapshot = snapshotDir ? setTimeout(() => process.kill(pid, "SIGUSR2"), rampMs + 1_500) : undefined;
    const result = await runStreams(upstreamUrl, load, streams);
    clearTimeout(snapshot);
    clearInterval(sampler);
    rssPeakBytes = Math.max(rssPeakBytes, rssBytes(pid));
    const upstream = JSON.parse(await upstreamCall(upstreamUrl, "/__stats")) as UpstreamStats;
    return {
      streams: result,
      rssBeforeBytes,
      rssPeakBytes,
      bytesPerStream: (rssPeakBytes - rssBeforeBytes) / streams,
      health: await health.stop(),
      upstream,
    };
  } finally {
    await target.process.stop(5_000);
    if (outputDir) writeFileSync(join(outputDir, `${name}.log`), target.process.output);
  }
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

async function main(): Promise<void> {
  for (const dir of [snapshotDir, profileDir, outputDir]) if (dir) mkdirSync(dir, { recursive: true });
  const upstream: ManagedProcess = await startProcess({
    name: "slow-upstream",
    command: process.execPath,
    args: ["--import", "tsx", join(here, "slow-upstream.ts"), "0"],
    cwd: root,
    ready: { line: /slow upstream listening on/ },
    timeoutMs: 30_000,
  });
  const upstreamUrl = upstream.listeningUrl;
  if (!upstreamUrl) throw new Error("the slow upstream did not say where it listens");
  const temporaryDirs: string[] = [];
  const results = new Map<TargetName, RoundResult[]>();
  log(
    `${streams} streams of 20 chunks 50 ms apart, ${clients} client processes, opened over ${rampMs} ms, ` +
      `started over ${spreadMs} ms once all are open`,
  );
  log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const name of targets) {
        const result = await measure(name, upstreamUrl, temporaryDirs);
        results.set(name, [...(results.get(name) ?? []), result]);
        const { streams: s, health } = result;
        log(
          `round ${round} ${name}: ${s.ok}/${streams} ok in ${Math.round(s.elapsedMs)} ms, RSS ${mb(result.rssBeforeBytes)} → ` +
            `${mb(result.rssPeakBytes)} MB (${kb(result.bytesPerStream)} KB/stream), health max ${health.maxMs.toFixed(1)} ms ` +
            `(${health.over50ms}/${health.polls} over 50 ms, ${health.failed} failed), upstream peak ` +
            `${result.upstream.peakStreams} streams / ${result.upstream.peakConnections} connections` +
            (s.failed > 0 ? `; problems: ${s.problems.join("; ")}` : "") +
            (health.slow.length > 0 ? `; slow polls (s into the run: ms): ${health.slow.join(", ")}` : ""),
        );
      }
    }
  } finally {
    await upstream.stop(3_000);
    for (const dir of temporaryDirs) rmSync(dir, { recursive: true, force: true });
  }
  report(results);
}

function report(results: Map<TargetName, RoundResult[]>): void {
  const summary = new Map<TargetName, { perStream: number; healthMax: number; ok: number; failed: number }>();
  console.log("");
  console.log(
    `Load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; ${rounds} round(s), medians.`,
  );
  console.log("");
  console.log(
    "| target | streams ok | RSS before MB | RSS peak MB | KB per stream | /health max ms | polls > 50 ms | upstream peak streams / connections |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const [name, runs] of results) {
    const perStream = median(runs.map((run) => run.bytesPerStream));
    const healthMax = median(runs.map((run) => run.health.maxMs));
    const ok = Math.min(...runs.map((run) => run.streams.ok));
    const failed = Math.max(...runs.map((run) => run.streams.failed + run.health.failed));
    summary.set(name, { perStream, healthMax, ok, failed });
    const last = runs.at(-1)!;
    console.log(
      `| ${TARGET_LABELS[name]} | ${ok}/${streams} | ${mb(median(runs.map((r) => r.rssBeforeBytes)))} | ` +
        `${mb(median(runs.map((r) => r.rssPeakBytes)))} | ${kb(perStream)} | ${healthMax.toFixed(1)} | ` +
        `${median(runs.map((r) => r.health.over50ms))} | ${last.upstream.peakStreams} / ${last.upstream.peakConnections} |`,
    );
  }
  console.log("");
  const proxy = summary.get("proxy");
  for (const name of ["gateway", "gateway-features"] as const) {
    const gateway = summary.get(name);
    if (!gateway) continue;
    const ratio = proxy
      ? ` (${(gateway.perStream / proxy.perStream).toFixed(2)}× the proxy's ${kb(proxy.perStream)} KB)`
      : "";
    const verdicts = [
      `all ${streams} streams correct: ${gateway.ok === streams && gateway.failed === 0 ? "met" : "MISSED"}`,
      `${kb(gateway.perStream)} KB per stream${ratio} (< 30 KB: ${gateway.perStream < GOAL_BYTES ? "met" : "MISSED"})`,
      `/health max ${gateway.healthMax.toFixed(1)} ms (< ${GOAL_HEALTH_MS} ms: ${gateway.healthMax < GOAL_HEALTH_MS ? "met" : "MISSED"})`,
    ];
    console.log(`- ${TARGET_LABELS[name]}: ${verdicts.join("; ")}`);
  }
}

await main();
