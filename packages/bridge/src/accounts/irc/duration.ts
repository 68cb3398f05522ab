// PingDelay is a Go duration in Matterbridge ("1m", "30s", "1m30s", "1.5h"); an invalid or zero value means 1m there.

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;

/** Milliseconds of a Go duration string, or undefined when it is not one. */
export function parseGoDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "0") return 0;
  if (trimmed === "") return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let end = 0;
  for (let match = PART.exec(trimmed); match !== null; match = PART.exec(trimmed)) {
    total += Number(match[1]) * (UNITS[match[2] ?? ""] ?? Number.NaN);
    end = PART.lastIndex;
  }
  return end === trimmed.length && Number.isFinite(total) ? total : undefined;
}
