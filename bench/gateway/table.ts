// The benchmark's report: one row per case and path, then the ratios the targets are about.
import { cpus, release } from "node:os";
import type { LoadResult } from "./load.ts";
import { median } from "./stats.ts";

export type TargetName = "direct" | "proxy" | "before" | "switchboard" | "portkey";

export interface CaseResult {
  caseName: string;
  stream: boolean;
  connections: number;
  target: TargetName;
  result?: LoadResult;
  /** CPU other processes used during the run, % of one core. */
  otherCpuPercent?: number;
  /** CPU time per response of the path's own server process (gateway, proxy, or the upstream for direct), µs. */
  serverCpuUsPerRequest?: number;
  unavailable?: string;
  note?: string;
}

const LABELS: Record<TargetName, string> = {
  direct: "direct (fake upstream)",
  proxy: "minimal proxy (node:http + undici)",
  before: "Switchboard before (--before)",
  switchboard: "Switchboard gateway",
  portkey: "Portkey gateway 1.15.2",
};

export function machineLine(): string {
  const cpu = cpus();
  return `${new Date().toISOString()} · ${cpu.length} × ${cpu[0]?.model ?? "cpu"} · Linux ${release()} · Node ${process.version}`;
}

interface Summary {
  rps: number;
  p50: number;
  p99: number;
  firstByteP50: number;
  problems: number;
  otherCpu: number;
  cpuPerRequest: number;
}

function summarize(runs: CaseResult[]): Summary {
  const results = runs.flatMap((run) => (run.result ? [run.result] : []));
  return {
    otherCpu: median(runs.map((run) => run.otherCpuPercent ?? Number.NaN)),
    cpuPerRequest: median(runs.map((run) => run.serverCpuUsPerRequest ?? Number.NaN)),
    ...summarizeResults(results),
  };
}

function summarizeResults(runs: LoadResult[]): Omit<Summary, "otherCpu" | "cpuPerRequest"> {
  return {
    rps: median(runs.map((run) => run.requestsPerSecond)),
    p50: median(runs.map((run) => run.latencyMs.p50)),
    p99: median(runs.map((run) => run.latencyMs.p99)),
    firstByteP50: median(runs.map((run) => run.firstByteMs.p50)),
    problems: runs.reduce((sum, run) => sum + run.errors + run.non2xx + run.invalid, 0),
  };
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : "–");
const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : "–");

export function renderReport(
  results: CaseResult[],
  run: { durationMs: number; warmupMs: number; rounds: number; pinned: boolean; nice?: number },
): string {
  const cases = [...new Set(results.map((r) => r.caseName))];
  const byCase = new Map<string, Map<TargetName, Summary | string>>();
  const notes = new Set<string>();
  for (const caseName of cases) {
    const rows = new Map<TargetName, Summary | string>();
    for (const target of Object.keys(LABELS) as TargetName[]) {
      const mine = results.filter((r) => r.caseName === caseName && r.target === target);
      if (mine.length === 0) continue;
      const measured = mine.filter((r) => r.result);
      rows.set(target, measured.length > 0 ? summarize(measured) : (mine[0]?.unavailable ?? "unavailable"));
      for (const r of mine) if (r.note) notes.add(`${LABELS[target]}: ${r.note}`);
    }
    byCase.set(caseName, rows);
  }

  const lines = [
    `Closed loop, ${run.durationMs / 1000} s measured after ${run.warmupMs / 1000} s warm-up per run, ` +
      `${run.rounds} round(s) (medians)${run.pinned ? "; servers on core 0, load generator on core 1" : ""}` +
      `${run.nice !== undefined ? `; bench processes at nice ${run.nice}` : ""}.`,
    "",
    "| case | path | req/s | p50 ms | p99 ms | first byte p50 ms | server CPU µs/req | errors | other CPU % |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const [caseName, rows] of byCase) {
    for (const [target, summary] of rows) {
      if (typeof summary === "string") {
        lines.push(`| ${caseName} | ${LABELS[target]} | unavailable: ${summary} | | | | | | |`);
        continue;
      }
      const firstByte = caseName.startsWith("stream") ? ms(summary.firstByteP50) : "";
      lines.push(
        `| ${caseName} | ${LABELS[target]} | ${summary.rps.toFixed(0)} | ${ms(summary.p50)} | ${ms(summary.p99)} | ${firstByte} | ${summary.cpuPerRequest.toFixed(0)} | ${summary.problems} | ${Number.isFinite(summary.otherCpu) ? summary.otherCpu.toFixed(0) : "–"} |`,
      );
    }
  }

  lines.push(
    "",
    "| case | Switchboard / minimal proxy (req/s) | Switchboard / Portkey (req/s) | CPU per request: proxy / Switchboard | CPU per request: Portkey / Switchboard | CPU per request: before / Switchboard | added p50 ms over direct: proxy · Switchboard · Portkey |",
    "|---|---:|---:|---:|---:|---:|---|",
  );
  const get = (rows: Map<TargetName, Summary | string>, target: TargetName) => {
    const value = rows.get(target);
    return typeof value === "object" ? value : undefined;
  };
  for (const [caseName, rows] of byCase) {
    const direct = get(rows, "direct");
    const proxy = get(rows, "proxy");
    const switchboard = get(rows, "switchboard");
    const portkey = get(rows, "portkey");
    const before = get(rows, "before");
    const nan = Number.NaN;
    const added = (s?: Summary) => (s && direct ? ms(s.p50 - direct.p50) : "–");
    lines.push(
      `| ${caseName} | ${ratio((switchboard?.rps ?? nan) / (proxy?.rps ?? nan))} | ` +
        `${ratio((switchboard?.rps ?? nan) / (portkey?.rps ?? nan))} | ` +
        `${ratio((proxy?.cpuPerRequest ?? nan) / (switchboard?.cpuPerRequest ?? nan))} | ` +
        `${ratio((portkey?.cpuPerRequest ?? nan) / (switchboard?.cpuPerRequest ?? nan))} | ` +
        `${ratio((before?.cpuPerRequest ?? nan) / (switchboard?.cpuPerRequest ?? nan))} | ` +
        `${added(proxy)} · ${added(switchboard)} · ${added(portkey)} |`,
    );
  }
  if (notes.size > 0) lines.push("", ...[...notes].map((note) => `Note: ${note}`));
  lines.push("", targetVerdicts(byCase));
  return lines.join("\n");
}

/**
 * The gateway's targets: at least the minimal proxy's throughput (stretch: 1.2×) and no more added time to the first
 * byte than the proxy adds; ≥ 10× Portkey; under 0.2 ms added p50 at one connection.
 */
function targetVerdicts(byCase: Map<string, Map<TargetName, Summary | string>>): string {
  const out: string[] = ["Targets (Switchboard):"];
  for (const [caseName, rows] of byCase) {
    const direct = rows.get("direct");
    const proxy = rows.get("proxy");
    const switchboard = rows.get("switchboard");
    const portkey = rows.get("portkey");
    if (typeof switchboard !== "object") {
      out.push(`- ${caseName}: not measured (${switchboard ?? "not run"})`);
      continue;
    }
    const checks: string[] = [];
    if (typeof proxy === "object") {
      const r = switchboard.rps / proxy.rps;
      checks.push(`${r.toFixed(2)}× the minimal proxy (≥ 1.0×: ${r >= 1 ? "met" : "MISSED"}; stretch 1.2×)`);
      const firstByte = (s: Summary) => (Number.isFinite(s.firstByteP50) ? s.firstByteP50 : s.p50);
      const behind = firstByte(switchboard) - firstByte(proxy);
      checks.push(
        `first byte p50 ${behind <= 0 ? "no later than" : `${behind.toFixed(3)} ms after`} the proxy's (${behind <= 0 ? "met" : "MISSED"})`,
      );
    }
    if (typeof portkey === "object") {
      const r = switchboard.rps / portkey.rps;
      checks.push(`${r.toFixed(1)}× Portkey (≥ 10×: ${r >= 10 ? "met" : "MISSED"})`);
    }
    if (caseName.endsWith(" c1") && typeof direct === "object") {
      const added = switchboard.p50 - direct.p50;
      checks.push(`added p50 ${added.toFixed(3)} ms (< 0.2 ms: ${added < 0.2 ? "met" : "MISSED"})`);
    }
    out.push(`- ${caseName}: ${checks.join("; ")}`);
  }
  return out.join("\n");
}
