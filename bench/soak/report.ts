// The soak's report: per process, heap and RSS slopes after warm-up (MB/hour) beside the baseline's, handles at
// every quiet moment, event-loop delay; then the errors, the bridge's ledger and the verdict against the goals.
// Pure: everything it needs comes in `SoakResult`, which main.ts also writes as JSON.
import { growthBeyondJitter } from "./handle-growth.ts";
import type { LedgerSummary } from "./ledger.ts";
import { max, mbPerHour, median, type Sample, slopePerSecond } from "./stats.ts";

const GOAL_HEAP_MB_PER_HOUR = 1;

export interface ProcessSeries {
  name: string;
  samples: Sample[];
  /** Samples taken with the load held still and every connection settled: after warm-up, and at the end. */
  quiet: Sample[];
  scrapeFailures: number;
}

export interface ClientCounts {
  done: Record<string, number>;
  expected: Record<string, number>;
  unexpected: Record<string, number>;
  examples: string[];
  logWarnings: number;
  logErrors: number;
  logMessages: string[];
}

export interface SoakResult {
  startedAt: string;
  minutes: number;
  warmupSeconds: number;
  sampleSeconds: number;
  processes: ProcessSeries[];
  gateway: ClientCounts & {
    /** gateway_errors_total series at the end, split by whether the flapping backend explains them. */
    expectedServerErrors: Record<string, number>;
    unexpectedServerErrors: Record<string, number>;
    flapTransitions: number;
  };
  bridge: ClientCounts & {
    ledger: LedgerSummary;
    drained: boolean;
    dropped: number;
    restarts: Record<string, number>;
  };
  machine: { cpus: number; loadBefore: number[]; loadAfter: number[] };
  /** Heap snapshots kept (--keep-snapshots): each process's, one per quiet moment. */
  snapshots: Record<string, string[]>;
}

interface ProcessFigures {
  name: string;
  /** MB/hour of the live heap: the heap read right after each quiet moment's snapshot (a full collection). */
  liveSlope?: number;
  liveFirst?: number;
  liveLast?: number;
  /** MB/hour over every sample after warm-up (garbage included: noisier). */
  heapSlope?: number;
  rssSlope?: number;
  /** Handles at each quiet moment. */
  handles: number[];
  /** How far the handles grew beyond their jitter (see handle-growth.ts): > 0 is growth; undefined below 2 counts. */
  handleGrowth?: number;
  /** Resource types whose quiet count grew by the same measure, e.g. "TCPSocketWrap +3". */
  grown: string[];
  loopP99Median?: number;
  loopP99Max?: number;
  samples: number;
  scrapeFailures: number;
}

const MB = 1024 * 1024;

export function figures(series: ProcessSeries, warmupSeconds: number): ProcessFigures {
  // A heap snapshot raises RSS for good (its own allocations, kept by malloc): slopes start after the first one.
  const from = Math.max(warmupSeconds, series.quiet[0]?.t ?? 0);
  const after = series.samples.filter((s) => s.t >= from);
  const loop = after.flatMap((s) => (s.loopDelayP99Seconds === undefined ? [] : [s.loopDelayP99Seconds * 1000]));
  const handles = series.quiet.flatMap((s) => (s.handles === undefined ? [] : [s.handles]));
  const withResources = series.quiet.flatMap((s) => (s.resources === undefined ? [] : [s.resources]));
  const types = new Set(withResources.flatMap((resources) => Object.keys(resources)));
  const grown: string[] = [];
  for (const type of types) {
    if (type === "Timeout" || type === "Immediate") continue;
    const growth = growthBeyondJitter(withResources.map((resources) => resources[type] ?? 0));
    if (growth !== undefined && growth > 0) grown.push(`${type} +${growth}`);
  }
  const live = series.quiet.flatMap((s) =>
    s.heapUsedBytes === undefined ? [] : [{ t: s.t, y: s.heapUsedBytes / MB }],
  );
  const liveSlope = slopePerSecond(live);
  return {
    name: series.name,
    liveSlope: liveSlope === undefined ? undefined : liveSlope * 3600,
    liveFirst: live[0]?.y,
    liveLast: live.length > 1 ? live.at(-1)?.y : undefined,
    heapSlope: mbPerHour(series.samples, "heapUsedBytes", from),
    rssSlope: mbPerHour(series.samples, "rssBytes", from),
    handles,
    handleGrowth: growthBeyondJitter(handles),
    grown,
    loopP99Median: median(loop),
    loopP99Max: max(loop),
    samples: series.samples.length,
    scrapeFailures: series.scrapeFailures,
  };
}

const n = (value: number | undefined, digits = 2) => (value === undefined ? "n/a" : value.toFixed(digits));
const signed = (value: number | undefined, digits = 2) =>
  value === undefined ? "n/a" : `${value >= 0 ? "+" : ""}${n(value, digits)}`;
/**
 * Digits enough that the printed value lies on the same side of `goal` as the value itself (below, on or above it):
 * 0.996 and 1.004 print as such, not both as 1.00, which reads as neither met nor not met.
 */
function digitsBeside(value: number | undefined, goal: number, digits = 2): number {
  if (value === undefined) return digits;
  const side = Math.sign(value - goal);
  for (let d = digits; d < 20; d++) if (Math.sign(Number(value.toFixed(d)) - goal) === side) return d;
  return 20;
}
const quietCounts = (f: ProcessFigures) =>
  `${f.handles.length > 0 ? f.handles.join(", ") : "n/a"}${f.grown.length > 0 ? ` (${f.grown.join(", ")})` : ""}`;
const sum = (record: Record<string, number>) => Object.values(record).reduce((a, b) => a + b, 0);
const listed = (record: Record<string, number>) =>
  Object.entries(record)
    .map(([key, count]) => `${key} ${count}`)
    .join(", ") || "none";

export interface Goal {
  goal: string;
  met: boolean;
  detail: string;
}

export function goals(result: SoakResult): Goal[] {
  const all = result.processes.map((p) => figures(p, result.warmupSeconds));
  const services = all.filter((f) => f.name !== "baseline");
  const out: Goal[] = [];
  for (const f of services) {
    out.push({
      goal: `${f.name}: heap slope under ${GOAL_HEAP_MB_PER_HOUR} MB/hour after warm-up (live heap, quiet moments)`,
      met: f.liveSlope !== undefined && f.liveSlope < GOAL_HEAP_MB_PER_HOUR,
      detail: `${n(f.liveSlope, digitsBeside(f.liveSlope, GOAL_HEAP_MB_PER_HOUR))} MB/hour (${n(f.liveFirst)} -> ${n(f.liveLast)} MB); every sample: ${n(f.heapSlope)} MB/hour`,
    });
    out.push({
      goal: `${f.name}: no handle growth (quiet moments: the last third's lowest count vs the first third's highest)`,
      met: f.handleGrowth !== undefined && f.handleGrowth <= 0,
      detail:
        f.handleGrowth === undefined
          ? `${quietCounts(f)} (fewer than 2 quiet counts)`
          : `${quietCounts(f)} (last third's lowest minus first third's highest: ${signed(f.handleGrowth, 0)})`,
    });
  }
  const g = result.gateway;
  const b = result.bridge;
  const unexpected =
    sum(g.unexpected) + g.logErrors + sum(g.unexpectedServerErrors) + sum(b.unexpected) + b.logErrors + b.dropped;
  const scrapes = all.reduce((total, f) => total + f.scrapeFailures, 0);
  out.push({
    goal: "zero unexpected errors",
    met: unexpected + scrapes === 0,
    detail:
      `gateway clients ${sum(g.unexpected)}, gateway error logs ${g.logErrors}, gateway server errors ` +
      `${sum(g.unexpectedServerErrors)}, bridge clients ${sum(b.unexpected)}, bridge error logs ${b.logErrors}, ` +
      `bridge drops ${b.dropped}, failed scrapes ${scrapes}`,
  });
  out.push({
    goal: "zero lost bridge messages",
    met: b.ledger.lost === 0 && b.ledger.accepted > 0,
    detail: `${b.ledger.lost} lost of ${b.ledger.expected} deliveries (${b.ledger.accepted} messages)`,
  });
  return out;
}

export function renderReport(result: SoakResult): string {
  const all = result.processes.map((p) => figures(p, result.warmupSeconds));
  const baseline = all.find((f) => f.name === "baseline");
  const lines: string[] = [];
  lines.push(
    `soak: ${result.minutes} min from ${result.startedAt}, samples every ${result.sampleSeconds} s, ` +
      `warm-up ${Math.round(result.warmupSeconds)} s discarded`,
    "",
    "| process | live heap MB/h | live heap MB first -> last | live MB/h - baseline | heap MB/h, every sample | RSS MB/h | handles, each quiet moment | loop p99 ms median / max | samples |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  for (const f of all) {
    const versus =
      f.name === "baseline" || baseline?.liveSlope === undefined || f.liveSlope === undefined
        ? "–"
        : signed(f.liveSlope - baseline.liveSlope);
    lines.push(
      `| ${f.name} | ${signed(f.liveSlope, digitsBeside(f.liveSlope, GOAL_HEAP_MB_PER_HOUR))} | ${n(f.liveFirst)} -> ${n(f.liveLast)} | ${versus} | ` +
        `${signed(f.heapSlope)} | ${signed(f.rssSlope)} | ${quietCounts(f)} | ` +
        `${n(f.loopP99Median, 1)} / ${n(f.loopP99Max, 1)} | ${f.samples}${f.scrapeFailures ? ` (${f.scrapeFailures} failed)` : ""} |`,
    );
  }
  const g = result.gateway;
  const b = result.bridge;
  lines.push(
    "",
    // docs/benchmarks.md, soak run 9: malloc_trim in the live processes gave that memory back; it is not a leak.
    "RSS MB/h is an upper bound: glibc keeps the memory each quiet moment's heap snapshot allocated and freed, and " +
      "the processes reuse it slowly (the baseline process's row shows the same).",
    "",
    `gateway requests: ${listed(g.done)}`,
    `gateway expected failures: ${listed(g.expected)}; flapping-backend transitions ${g.flapTransitions}; ` +
      `its failed attempts (failed over) ${listed(g.expectedServerErrors)}`,
    `gateway unexpected: clients ${listed(g.unexpected)}; server errors ${listed(g.unexpectedServerErrors)}; ` +
      `log: ${g.logErrors} errors, ${g.logWarnings} warnings`,
    `bridge: ${listed(b.done)}; restarts ${listed(b.restarts)}`,
    `bridge messages: ${b.ledger.accepted} accepted, ${b.ledger.expected} deliveries expected, ${b.ledger.lost} lost` +
      ` (${listed(b.ledger.lostByDestination)}), ${b.ledger.duplicated} duplicated, ${b.ledger.unexpected} unrecorded` +
      `${b.drained ? "" : " — NOT DRAINED within the bound"}`,
    `bridge unexpected: clients ${listed(b.unexpected)}; drops ${b.dropped}; log: ${b.logErrors} errors, ${b.logWarnings} warnings`,
  );
  for (const example of [...g.examples, ...b.examples]) lines.push(`  example: ${example}`);
  for (const message of [...g.logMessages, ...b.logMessages]) lines.push(`  log: ${message}`);
  if (b.ledger.lostExamples.length > 0) lines.push(`  lost: ${b.ledger.lostExamples.join(" ")}`);
  lines.push(
    `machine: ${result.machine.cpus} cores, load average before ${result.machine.loadBefore.map((x) => x.toFixed(2)).join(" ")}, ` +
      `after ${result.machine.loadAfter.map((x) => x.toFixed(2)).join(" ")}`,
    "",
    "verdict:",
  );
  for (const goal of goals(result)) lines.push(`  ${goal.met ? "MET    " : "NOT MET"} ${goal.goal}: ${goal.detail}`);
  return lines.join("\n");
}
