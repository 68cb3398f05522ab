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

export function ratio(value: number, baseline: number): string {
  if (!Number.isFinite(value) || !Number.isFinite(baseline) || baseline <= 0) return "–";
  return `${(value / baseline).toFixed(1)}×`;
}

function statuses(map: ReadonlyMap<string, number>): string {
  return [...map].map(([status, count]) => `${status}×${count}`).join(" ") || "–";
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "–");

/** A Markdown table: one row per phase, ratios against that service's baseline, then the verdict per service. */
export function renderReport(results: readonly PhaseResult[], goalMs: number): string {
  const lines = [
    "| service | hostile case | sent | answers | longest stall ms | own loop delay ms | own longest busy ms | own longest GC ms | health p99 ms | normal p50 ms | normal p99 ms | normal errors | stall vs baseline | normal p99 vs baseline | RSS MB |",
    "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const verdicts: string[] = [];
  for (const service of new Set(results.map((result) => result.service))) {
    const phases = results.filter((result) => result.service === service);
    const baseline = phases.find((phase) => phase.name === "baseline");
    const baseStall = baseline ? longest(baseline.probe) : Number.NaN;
    const baseP99 = baseline ? percentile(baseline.normal, 99) : Number.NaN;
    let worst: PhaseResult | undefined;
    let worstBusy: PhaseResult | undefined;
    for (const phase of phases) {
      const stall = longest(phase.probe);
      if (phase.name !== "baseline" && (!worst || stall > longest(worst.probe))) worst = phase;
      if (phase.name !== "baseline" && (!worstBusy || (phase.busyMs ?? 0) > (worstBusy.busyMs ?? 0))) {
        worstBusy = phase;
      }
      lines.push(
        `| ${service} | ${phase.name} | ${phase.hostileSent} | ${statuses(phase.hostileStatuses)} | ${fixed(stall)} | ${fixed(phase.loopDelayMs ?? Number.NaN)} | ${fixed(phase.busyMs ?? Number.NaN)} | ${fixed(phase.gcMs ?? Number.NaN)} | ` +
          `${fixed(percentile(phase.probe, 99))} | ${fixed(percentile(phase.normal, 50), 2)} | ${fixed(percentile(phase.normal, 99), 2)} | ${phase.normalErrors} | ` +
          `${ratio(stall, baseStall)} | ${ratio(percentile(phase.normal, 99), baseP99)} | ${fixed(phase.rssMb ?? Number.NaN, 0)} |`,
      );
    }
    if (worst && worstBusy) {
      const busy = worstBusy.busyMs ?? Number.NaN;
      verdicts.push(
        `${service}: its own longest busy span ${fixed(busy)} ms (${worstBusy.name}), baseline ` +
          `${fixed(baseline?.busyMs ?? Number.NaN)} ms; goal < ${goalMs} ms: ${busy < goalMs ? "met" : "NOT met"}. ` +
          `Longest stall seen from outside ${fixed(longest(worst.probe))} ms (${worst.name}), baseline ${fixed(baseStall)} ms ` +
          "(includes waiting for a CPU on a shared machine)",
      );
    }
  }
  return `${lines.join("\n")}\n\n${verdicts.join("\n")}`;
}
