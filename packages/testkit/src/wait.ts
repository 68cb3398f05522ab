/** Polls `condition` until it returns a truthy value, for at most timeoutMs; the value is returned. */
export async function waitUntil<T>(
  condition: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 20, what = "condition" } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Rejects with a clear message if `promise` does not settle within timeoutMs. */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what = "operation"): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
