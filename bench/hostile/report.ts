// The hostile bench's numbers and its table: percentiles, and ratios against the normal-traffic baseline.
import type { Service } from "./payloads.ts";

export interface PhaseResult {
  service: Service;
  /** "baseline" for normal traffic alone. */
  name: string;
  /** Latencies of the health probe polled every few ms, ms. */
  probe: number[];
  /** Latencies of normal requests sent meanwhile, ms. */
  normal: number[];
  normalErrors: number;
  hostileSent: number;
  /** Status codes the hostile requests got (or "error"), with counts. */
  hostileStatuses: Map<string, number>;
  /** The longest event-loop delay the service measured itself during the phase (loop-monitor.ts), ms. */
  loopDelayMs: number | undefined;
  /** The longest time the service's main thread ran without its loop turning (CPU time, not wall), ms. */
  busyMs: number | undefined;
  /** The longest garbage-collection pause in the service during the phase (part of a busy span), ms. */
  gcMs: number | undefined;
  /** The service's resident memory after the phase, MB. */
  rssMb: number | undefined;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function longest(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : Math.max(...values);
}

function ratio(value: number, baseline: number): string {
  if (!Number.isFinite(value) || !Number.isFinite(baseline) || baseline <= 0) return "–";
  return `${(value / baseline).toFixed(1)}×`;
}

function statuses(map: ReadonlyMap<string, number>): string {
  return [...map].map(([status, count]) => `${status}×${count}`).join(" ") || "–";
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "–");

const median = (values: readonly number[]) => percentile(values, 50);

/** The runs of each (service, case), in the order first seen. */
function byCase(results: readonly PhaseResult[]): PhaseResult[][] {
  const groups = new Map<string, PhaseResult[]>();
  for (const result of results) {
    const key = `${result.service}\u0000${result.name}`;
    groups.set(key, [...(groups.get(key) ?? []), result]);
  }
  return [...groups.values()];
}

/** One case over its runs: medians across runs (a recurring stall shows in each run, a passing spike does not). */
interface CaseSummary {
  service: Service;
  name: string;
  sent: number;
  statuses: Map<string, number>;
  stall: number;
  loopDelay: number;
  busy: number;
  busyEachRun: number[];
  gc: number;
  healthP99: number;
  normalP50: number;
  normalP99: number;
  normalErrors: number;
  rssMb: number;
}

function summarise(runs: readonly PhaseResult[]): CaseSummary {
  const statuses = new Map<string, number>();
  for (const run of runs)
    for (const [status, count] of run.hostileStatuses) statuses.set(status, (statuses.get(status) ?? 0) + count);
  const each = (read: (run: PhaseResult) => number | undefined) => median(runs.map((run) => read(run) ?? Number.NaN));
  return {
    service: runs[0]!.service,
    name: runs[0]!.name,
    sent: runs.reduce((sum, run) => sum + run.hostileSent, 0),
    statuses,
    stall: each((run) => longest(run.probe)),
    loopDelay: each((run) => run.loopDelayMs),
    busy: each((run) => run.busyMs),
    busyEachRun: runs.map((run) => run.busyMs ?? Number.NaN),
    gc: each((run) => run.gcMs),
    healthP99: each((run) => percentile(run.probe, 99)),
    normalP50: each((run) => percentile(run.normal, 50)),
    normalP99: each((run) => percentile(run.normal, 99)),
    normalErrors: runs.reduce((sum, run) => sum + run.normalErrors, 0),
    rssMb: runs[runs.length - 1]!.rssMb ?? Number.NaN,
  };
}

/**
 * A Markdown table: one row per case with medians across its runs (and its longest busy span in each run), ratios
 * against that service's baseline, then the verdict per service, judged on the medians.
 */
export function renderReport(results: readonly PhaseResult[], goalMs: number): string {
  const lines = [
    "| service | hostile case | sent | answers | longest stall ms | own loop delay ms | own longest busy ms | each run | own longest GC ms | health p99 ms | normal p50 ms | normal p99 ms | normal errors | stall vs baseline | normal p99 vs baseline | RSS MB |",
    "| --- | --- | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const verdicts: string[] = [];
  const cases = byCase(results).map(summarise);
  for (const service of new Set(cases.map((summary) => summary.service))) {
    const rows = cases.filter((summary) => summary.service === service);
    const baseline = rows.find((row) => row.name === "baseline");
    const hostile = rows.filter((row) => row.name !== "baseline");
    for (const row of rows) {
      lines.push(
        `| ${service} | ${row.name} | ${row.sent} | ${statuses(row.statuses)} | ${fixed(row.stall)} | ${fixed(row.loopDelay)} | ${fixed(row.busy)} | ${row.busyEachRun.map((busy) => fixed(busy)).join(" / ")} | ${fixed(row.gc)} | ` +
          `${fixed(row.healthP99)} | ${fixed(row.normalP50, 2)} | ${fixed(row.normalP99, 2)} | ${row.normalErrors} | ` +
          `${ratio(row.stall, baseline?.stall ?? Number.NaN)} | ${ratio(row.normalP99, baseline?.normalP99 ?? Number.NaN)} | ${fixed(row.rssMb, 0)} |`,
      );
    }
    const worstBusy = hostile.reduce<CaseSummary | undefined>(
      (worst, row) => (!worst || row.busy > worst.busy ? row : worst),
      undefined,
    );
    const worstStall = hostile.reduce<CaseSummary | undefined>(
      (worst, row) => (!worst || row.stall > worst.stall ? row : worst),
      undefined,
    );
    if (worstBusy && worstStall) {
      verdicts.push(
        `${service}: its own longest busy span ${fixed(worstBusy.busy)} ms (${worstBusy.name}), baseline ` +
          `${fixed(baseline?.busy ?? Number.NaN)} ms; goal < ${goalMs} ms: ${worstBusy.busy < goalMs ? "met" : "NOT met"}. ` +
          `Longest stall seen from outside ${fixed(worstStall.stall)} ms (${worstStall.name}), baseline ${fixed(baseline?.stall ?? Number.NaN)} ms ` +
          "(includes waiting for a CPU on a shared machine)",
      );
    }
  }
  return `${lines.join("\n")}\n\n${verdicts.join("\n")}`;
}
