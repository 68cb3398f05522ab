// Samples one process: RSS from /proc/<pid>/status (the kernel's figure, whatever the process says), and the heap,
// active resources and event-loop delay the process publishes on its Prometheus /metrics.
import { readFileSync } from "node:fs";
import type { Sample } from "./stats.ts";

/** One series of a Prometheus text answer: `name{labels} value`. */
interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parsePrometheus(text: string): Series[] {
  const series: Series[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1] ?? ""] = pair[2] ?? "";
    series.push({ name: match[1] ?? "", labels, value: Number(match[3]) });
  }
  return series;
}

/** Which series hold the figures: the gateway has its own names, the bridge and the baseline prom-client's. */
export interface MetricNames {
  heapUsed: { name: string; labels?: Record<string, string> };
  loopDelayP99: { name: string; labels?: Record<string, string> };
}

export const GATEWAY_METRICS: MetricNames = {
  heapUsed: { name: "gateway_process_heap_bytes", labels: { kind: "used" } },
  loopDelayP99: { name: "gateway_event_loop_delay_seconds", labels: { statistic: "p99" } },
};
export const STANDARD_METRICS: MetricNames = {
  heapUsed: { name: "nodejs_heap_size_used_bytes" },
  loopDelayP99: { name: "nodejs_eventloop_delay_seconds", labels: { statistic: "p99" } },
};

const TIMER_TYPES = new Set(["Timeout", "Immediate"]);

function pick(series: Series[], wanted: { name: string; labels?: Record<string, string> }): number | undefined {
  return series.find(
    (s) => s.name === wanted.name && Object.entries(wanted.labels ?? {}).every(([k, v]) => s.labels[k] === v),
  )?.value;
}

/** The figures of one /metrics answer (undefined where the process publishes nothing). */
export function figuresOf(text: string, names: MetricNames): Omit<Sample, "t" | "rssBytes"> {
  const series = parsePrometheus(text);
  const resources = series.filter((s) => s.name === "nodejs_active_resources");
  const count = (timers: boolean) =>
    resources.length === 0
      ? undefined
      : resources.filter((s) => TIMER_TYPES.has(s.labels.type ?? "") === timers).reduce((n, s) => n + s.value, 0);
  return {
    resources: Object.fromEntries(resources.map((s) => [s.labels.type ?? "", s.value])),
    heapUsedBytes: pick(series, names.heapUsed),
    loopDelayP99Seconds: pick(series, names.loopDelayP99),
    handles: count(false),
    timers: count(true),
  };
}

function rssBytes(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined; // the process is gone: the sample says so by its missing figure
  }
}

export interface SampledProcess {
  name: string;
  pid: number;
  metricsUrl: string;
  headers?: Record<string, string>;
  names: MetricNames;
}

/** Takes one sample; a scrape that fails still yields the RSS (and counts as a failed scrape). */
export async function sample(target: SampledProcess, t: number): Promise<{ sample: Sample; scrapeFailed: boolean }> {
  const rss = rssBytes(target.pid);
  try {
    const answer = await fetch(target.metricsUrl, { headers: target.headers, signal: AbortSignal.timeout(5_000) });
    const text = await answer.text();
    if (!answer.ok) throw new Error(`${answer.status}`);
    return { sample: { t, rssBytes: rss, ...figuresOf(text, target.names) }, scrapeFailed: false };
  } catch {
    return { sample: { t, rssBytes: rss }, scrapeFailed: true };
  }
}
