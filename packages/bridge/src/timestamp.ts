// RFC 3339 timestamps with a 9-digit nanosecond fraction and a numeric offset (never "Z"), e.g.
// 2026-11-22T10:15:30.123456789+00:00. Nanoseconds come from the monotonic clock anchored to the wall clock.

let anchorNs = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();

/** Nanoseconds since the Unix epoch, monotonic between re-anchors. */
function nowNs(): bigint {
  let ns = anchorNs + process.hrtime.bigint();
  // Re-anchor when the wall clock moved (NTP step, suspend): the two clocks must not drift apart for long.
  const wallMs = Date.now();
  const driftMs = Number(ns / 1_000_000n) - wallMs;
  if (driftMs > 50 || driftMs < -50) {
    anchorNs = BigInt(wallMs) * 1_000_000n - process.hrtime.bigint();
    ns = anchorNs + process.hrtime.bigint();
  }
  return ns;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

/** The second a cached prefix and suffix are for, and those: "2026-11-22T10:15:30" and "+00:00". */
let cachedSecond = Number.NaN;
let cachedPrefix = "";
let cachedOffset = "";

/**
 * Formats nanoseconds since the epoch in the local time zone with its numeric offset. The date, time and offset
 * are formatted once per second (a burst of messages shares them; offsets change on whole seconds), the fraction
 * every time.
 */
export function formatTimestamp(ns: bigint): string {
  const ms = Number(ns / 1_000_000n);
  const fraction = Number(ns % 1_000_000_000n);
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    const offsetMinutes = -new Date(ms).getTimezoneOffset();
    const local = new Date(ms + offsetMinutes * 60_000);
    const sign = offsetMinutes < 0 ? "-" : "+";
    const abs = Math.abs(offsetMinutes);
    cachedPrefix =
      `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)}` +
      `T${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}`;
    cachedOffset = `${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
    cachedSecond = second;
  }
  return `${cachedPrefix}.${pad(fraction, 9)}${cachedOffset}`;
}

/** The current time as an RFC 3339 string with nanoseconds and a numeric offset. */
export function timestampNow(): string {
  return formatTimestamp(nowNs());
}
