// The soak (run by main.ts): both services (real bins) under mixed load for N minutes (default 60), beside
// a baseline Node process that only publishes the same process metrics. Every --sample-seconds each process's RSS
// (/proc), V8 heap used, active resources and event-loop delay (its /metrics) are sampled; at the end, per process,
// least-squares slopes of heap and RSS after warm-up in MB/hour, handles across the quiet moments, errors expected and
// unexpected, the bridge's lost and duplicated messages, and a verdict against the goals (report.ts). The gateway's
// load is gateway-soak.ts, the bridge's bridge-soak.ts.
// Flags: --minutes 60 --warmup MIN (20 % of the run) --sample-seconds 10 --workers 4 --pace-ms 100 --rate 2
// --flap-minutes 3 --restart-minutes 4 --down-seconds 5 --lifecycle-seconds 60 --json FILE (every sample and count)
// --quiet-minutes 10 (between quiet moments: load held, heap snapshots, live heap and handles sampled)
// --keep-snapshots DIR (keeps each process's heap snapshot of every quiet moment there, named <process>-<minute>:
// compare them with compare-heaps.ts, or in DevTools)
// --node-flags="..." (added to both services' node, e.g. --heapsnapshot-near-heap-limit=1)

import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type ManagedProcess, startProcess, type Teardown } from "@switchboard/testkit";
import { serviceBin } from "../service-bin.ts";
import { BridgeSoak } from "./bridge-soak.ts";
import { GatewaySoak } from "./gateway-soak.ts";
import { SNAPSHOT_FLAG, takeHeapSnapshot } from "./heap-snapshot.ts";
import type { LogLevels } from "./log-levels.ts";
import type { Outcomes } from "./outcomes.ts";
import { type ClientCounts, goals, type ProcessSeries, renderReport, type SoakResult } from "./report.ts";
import { GATEWAY_METRICS, parsePrometheus, type SampledProcess, STANDARD_METRICS, sample } from "./sampler.ts";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = resolve(here, "../..");

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "60" },
    warmup: { type: "string" },
    "sample-seconds": { type: "string", default: "10" },
    workers: { type: "string", default: "4" },
    "pace-ms": { type: "string", default: "100" },
    rate: { type: "string", default: "2" },
    "flap-minutes": { type: "string", default: "3" },
    "restart-minutes": { type: "string", default: "4" },
    "down-seconds": { type: "string", default: "5" },
    "lifecycle-seconds": { type: "string", default: "60" },
    "quiet-minutes": { type: "string", default: "10" },
    "keep-snapshots": { type: "string" },
    json: { type: "string" },
    "node-flags": { type: "string", default: "" },
  },
});
const minutes = Number(values.minutes);
const runMs = minutes * 60_000;
const warmupSeconds = values.warmup === undefined ? runMs / 5 / 1000 : Number(values.warmup) * 60;
const sampleMs = Number(values["sample-seconds"]) * 1000;
const nodeArgs = values["node-flags"].split(" ").filter(Boolean);
const quietMs = Number(values["quiet-minutes"]) * 60_000;
/** Held still before a quiet sample: longer than the clients' keep-alive (undici: 4 s) and a dashboard session. */
const QUIET_MS = 6_000;

const log = (line: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);

const cleanups: (() => Promise<unknown> | unknown)[] = [];
const teardown: Teardown = { after: (fn) => cleanups.push(fn) };
let cleaning: Promise<void> | undefined;
const cleanUp = () => {
  cleaning ??= (async () => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => {});
  })();
  return cleaning;
};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping every process the soak started`);
    void cleanUp().then(() => process.exit(130));
  });
}

function counts(outcomes: Outcomes, logs: LogLevels): ClientCounts {
  return {
    done: Object.fromEntries(outcomes.done),
    expected: Object.fromEntries(outcomes.expected),
    unexpected: Object.fromEntries(outcomes.unexpected),
    examples: outcomes.examples,
    logWarnings: logs.warnings,
    logErrors: logs.errors,
    logMessages: [...logs.describe("error").map((m) => `error ${m}`), ...logs.describe("warn").map((m) => `warn ${m}`)],
  };
}

async function metricsText(url: string, headers?: Record<string, string>): Promise<string> {
  const answer = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
  return answer.text();
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-soak-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  // Each sampled process runs in this folder, where its heap snapshots land.
  const snapshotDir = join(dir, "snapshots");
  mkdirSync(snapshotDir);
  const loadBefore = loadavg();
  const startedAt = new Date().toISOString();

  const baseline: ManagedProcess = await startProcess(
    {
      name: "baseline",
      command: process.execPath,
      args: [SNAPSHOT_FLAG, "--import", import.meta.resolve("tsx"), join(here, "main.ts"), "--baseline-process"],
      cwd: snapshotDir,
      ready: { line: "baseline listening on" },
      timeoutMs: 30_000,
    },
    teardown,
  );
  const baselineUrl = /listening on (http:\/\/[\d.:]+)/.exec(baseline.output)?.[1];
  const gateway = await GatewaySoak.start(
    {
      bin: serviceBin(root, "gateway"),
      dir,
      cwd: snapshotDir,
      workers: Number(values.workers),
      paceMs: Number(values["pace-ms"]),
      flapMs: Number(values["flap-minutes"]) * 60_000,
      lifecycleMs: Number(values["lifecycle-seconds"]) * 1000,
      nodeArgs,
    },
    teardown,
  );
  const bridge = await BridgeSoak.start(
    {
      bin: serviceBin(root, "bridge"),
      dir,
      cwd: snapshotDir,
      rate: Number(values.rate),
      restartMs: Number(values["restart-minutes"]) * 60_000,
      downMs: Number(values["down-seconds"]) * 1000,
      nodeArgs,
    },
    teardown,
  );
  log(`gateway pid ${gateway.process.pid}, bridge pid ${bridge.process.pid}, baseline pid ${baseline.pid}; dir ${dir}`);

  const targets: SampledProcess[] = [
    {
      name: "gateway",
      pid: gateway.process.pid,
      metricsUrl: `${gateway.url}/metrics`,
      headers: gateway.metricsHeaders,
      names: GATEWAY_METRICS,
    },
    { name: "bridge", pid: bridge.process.pid, metricsUrl: `${bridge.statusUrl}/metrics`, names: STANDARD_METRICS },
    { name: "baseline", pid: baseline.pid, metricsUrl: `${baselineUrl}/metrics`, names: STANDARD_METRICS },
  ];
  const series: ProcessSeries[] = targets.map((t) => ({ name: t.name, samples: [], quiet: [], scrapeFailures: 0 }));
  const t0 = Date.now();
  const sampleAll = async (quiet: boolean) => {
    const t = (Date.now() - t0) / 1000;
    await Promise.all(
      targets.map(async (target, i) => {
        const { sample: taken, scrapeFailed } = await sample(target, t);
        const into = series[i] as ProcessSeries;
        (quiet ? into.quiet : into.samples).push(taken);
        if (scrapeFailed) into.scrapeFailures++;
      }),
    );
  };
  /** Each process's heap snapshots, with the minute of the run each was taken at. */
  const snapshots = new Map<string, { file: string; minute: number }[]>(targets.map((t) => [t.name, []]));
  /**
   * Holds the load still until the bridge is settled and the clients' connections have closed, takes a heap snapshot
   * of each process (a full collection first), then samples: quiet samples read the live heap and the lasting handles.
   */
  const quietSample = async (what: string) => {
    gateway.pause();
    bridge.pauser.pause();
    await bridge.waitSettled(60_000);
    await bridge.drain();
    await sleep(QUIET_MS);
    for (const target of targets) {
      const file = await takeHeapSnapshot(target.pid, snapshotDir);
      if (file === undefined) log(`${target.name}: no heap snapshot within the bound`);
      else snapshots.get(target.name)?.push({ file, minute: (Date.now() - t0) / 60_000 });
    }
    await sampleAll(true);
    const read = series.map((s) => {
      const q = s.quiet.at(-1);
      return `${s.name} live heap ${((q?.heapUsedBytes ?? 0) / 2 ** 20).toFixed(2)} MB, handles ${q?.handles ?? "n/a"}`;
    });
    log(`quiet sample (${what}): ${read.join("; ")}${bridge.settled ? "" : " (bridge NOT settled)"}`);
    gateway.resume();
    bridge.pauser.resume();
  };

  gateway.startLoad();
  bridge.startLoad();
  let nextQuiet = warmupSeconds * 1000;
  let nextProgress = t0 + 60_000;
  while (Date.now() - t0 < runMs) {
    await sleep(Math.min(sampleMs, Math.max(0, runMs - (Date.now() - t0))));
    await sampleAll(false);
    gateway.forgetRecordedRequests();
    // Quiet moments: at the end of warm-up, then every --quiet-minutes (none too close to the end's own).
    if (Date.now() - t0 >= nextQuiet && runMs - (Date.now() - t0) > quietMs / 2) {
      await quietSample(
        nextQuiet === warmupSeconds * 1000 ? "after warm-up" : `${Math.round((Date.now() - t0) / 60_000)} min`,
      );
      nextQuiet += quietMs;
    }
    if (Date.now() >= nextProgress) {
      nextProgress += 60_000;
      const last = series.map((s) => {
        const x = s.samples.at(-1);
        return `${s.name} heap ${((x?.heapUsedBytes ?? 0) / 2 ** 20).toFixed(1)} MB rss ${((x?.rssBytes ?? 0) / 2 ** 20).toFixed(1)} MB`;
      });
      log(
        `${Math.round((Date.now() - t0) / 60_000)} min: ${last.join("; ")}; gateway unexpected ` +
          `${gateway.outcomes.total(gateway.outcomes.unexpected)}; bridge missing ${bridge.ledger.missing()}`,
      );
    }
  }
  // The last quiet moment comes before the load stops, so that it is taken as the others are (the bridge's
  // persistent /api/stream still open, the dashboard loop idle), then the load stops and the bridge drains.
  await quietSample("end");
  log("load stopping; draining the bridge");
  await gateway.stop();
  await bridge.stop();

  const gatewayErrors = parsePrometheus(await metricsText(`${gateway.url}/metrics`, gateway.metricsHeaders)).filter(
    (s) => s.name === "gateway_errors_total" && s.value > 0,
  );
  const serverErrors = (flappy: boolean) =>
    Object.fromEntries(
      gatewayErrors
        .filter((s) => (s.labels.backend === "flappy") === flappy)
        .map((s) => [`${s.labels.kind}@${s.labels.backend}`, s.value]),
    );
  const dropped = parsePrometheus(await metricsText(`${bridge.statusUrl}/metrics`))
    .filter((s) => s.name === "bridge_messages_dropped_total")
    .reduce((total, s) => total + s.value, 0);

  const kept: Record<string, string[]> = {};
  if (values["keep-snapshots"] !== undefined) {
    const into = values["keep-snapshots"];
    mkdirSync(into, { recursive: true });
    for (const [name, files] of snapshots) {
      kept[name] = files.map(({ file, minute }) => {
        const to = join(into, `${name}-${minute.toFixed(1).padStart(5, "0")}min.heapsnapshot`);
        renameSync(file, to);
        return to;
      });
    }
  }
  const result: SoakResult = {
    startedAt,
    minutes,
    warmupSeconds,
    sampleSeconds: sampleMs / 1000,
    processes: series,
    gateway: {
      ...counts(gateway.outcomes, gateway.logs),
      expectedServerErrors: serverErrors(true),
      unexpectedServerErrors: serverErrors(false),
      flapTransitions: gateway.flapTransitions,
    },
    bridge: {
      ...counts(bridge.outcomes, bridge.logs),
      ledger: bridge.ledger.summary(),
      drained: bridge.ledger.missing() === 0,
      dropped,
      restarts: bridge.restarts,
    },
    machine: { cpus: cpus().length, loadBefore, loadAfter: loadavg() },
    snapshots: kept,
  };
  if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify(result)}\n`);
  console.log(renderReport(result));
  const met = goals(result).every((goal) => goal.met);
  console.log(`SOAK-SUMMARY ${JSON.stringify({ met, goals: goals(result) })}`);
}

try {
  await main();
} finally {
  await cleanUp();
}
