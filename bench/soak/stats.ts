// Pure arithmetic over samples: least-squares slopes and first-versus-last comparisons. No I/O, so it is tested
// directly (report.test.ts) and the report can never depend on timing to be sane.

/** One reading of one process. Undefined fields: the process did not publish that figure in this scrape. */
export interface Sample {
  /** Seconds since the soak started. */
  t: number;
  rssBytes?: number;
  heapUsedBytes?: number;
  /** Sockets, servers, pipes, file requests... (nodejs_active_resources without Timeout and Immediate). */
  handles?: number;
  timers?: number;
  loopDelayP99Seconds?: number;
  /** nodejs_active_resources by type. */
  resources?: Record<string, number>;
}

/** Least-squares slope of y over t (t in seconds), or undefined with fewer than 2 points. */
export function slopePerSecond(points: readonly { t: number; y: number }[]): number | undefined {
  if (points.length < 2) return undefined;
  const n = points.length;
  const meanT = points.reduce((sum, p) => sum + p.t, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (p.t - meanT) * (p.y - meanY);
    variance += (p.t - meanT) ** 2;
  }
  return variance === 0 ? undefined : covariance / variance;
}

const MB = 1024 * 1024;

/** Slope of a byte series in MB per hour over the samples at or after `fromT`. */
export function mbPerHour(samples: readonly Sample[], key: "rssBytes" | "heapUsedBytes", fromT: number) {
  const points = samples.flatMap((s) => (s.t >= fromT && s[key] !== undefined ? [{ t: s.t, y: s[key] }] : []));
  const slope = slopePerSecond(points);
  return slope === undefined ? undefined : (slope * 3600) / MB;
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function max(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((a, b) => Math.max(a, b));
}
