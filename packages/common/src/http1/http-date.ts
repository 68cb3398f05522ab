/** The Date header's value, as node:http keeps it: built at most once per second. */
let cached = "";
let cachedSecond = -1;

export function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cached = new Date(now).toUTCString();
  }
  return cached;
}
