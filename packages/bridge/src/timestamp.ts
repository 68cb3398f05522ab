// RFC 3339 timestamps with a 9-digit nanosecond fraction and a numeric offset (never "Z"), e.g.
// 2026-11-22T10:15:30.123456789+00:00. Nanoseconds come from the monotonic clock (performance.now(): milliseconds
// as a double, precise to well under a nanosecond's worth for months of uptime) anchored to the wall clock.
// Numbers, not BigInt: an instant is whole seconds since the epoch plus nanoseconds, each exact in a double; a BigInt
// clock made two BigInts per message, a quarter of a microsecond of a post's CPU in api -> IRC bursts.

/** The anchor: the wall clock's whole second and nanoseconds into it, and the monotonic clock's reading then. */
let anchorSecond = 0;
let anchorNanos = 0;
let anchorPerfMs = 0;

function anchorAt(wallMs: number): void {
  anchorPerfMs = performance.now();
  anchorSecond = Math.floor(wallMs / 1000);
  anchorNanos = (wallMs - anchorSecond * 1000) * 1_000_000;
}
anchorAt(Date.now());

/** Nanoseconds since the anchor's second (monotonic between re-anchors). */
function nanosSinceAnchorSecond(): number {
  const nanos = anchorNanos + Math.round((performance.now() - anchorPerfMs) * 1_000_000);
  // Re-anchor when the wall clock moved (NTP step, suspend): the two clocks must not drift apart for long.
  const wallMs = Date.now();
  const driftMs = anchorSecond * 1000 + nanos / 1_000_000 - wallMs;
  if (driftMs <= 50 && driftMs >= -50) return nanos;
  anchorAt(wallMs);
  return anchorNanos;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

/** The second a cached prefix and suffix are for, and those: "2026-11-22T10:15:30" and "+00:00". */
let cachedSecond = Number.NaN;
let cachedPrefix = "";
let cachedOffset = "";

/**
 * Formats an instant (whole seconds since the epoch, and 0-999,999,999 nanoseconds into that second) in the local
 * time zone with its numeric offset. The date, time and offset are formatted once per second (a burst of messages
 * shares them; offsets change on whole seconds), the fraction every time.
 */
export function formatTimestamp(second: number, nanos: number): string {
  if (second !== cachedSecond) {
    const ms = second * 1000;
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
  return `${cachedPrefix}.${pad(nanos, 9)}${cachedOffset}`;
}

/** The current time as an RFC 3339 string with nanoseconds and a numeric offset. */
export function timestampNow(): string {
  const nanos = nanosSinceAnchorSecond();
  const seconds = Math.floor(nanos / 1_000_000_000);
  return formatTimestamp(anchorSecond + seconds, nanos - seconds * 1_000_000_000);
}
