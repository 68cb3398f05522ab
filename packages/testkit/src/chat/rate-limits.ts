// A simulator's rate limiter as tests drive it: "the next N requests (of this method, on paths like this) are
// answered 429". Each simulator words its own 429 the way its platform does; this only decides which requests get it.

export interface RateLimit {
  /** Requests still to refuse. */
  remaining: number;
  /** The wait the answer asks for, in seconds; each platform has its own default. */
  retryAfter?: number;
  /** Only requests with this method (any by default). */
  method?: string;
  /** Only requests on a path it matches (any by default). */
  path?: RegExp;
}

export class RateLimits {
  readonly #queue: RateLimit[] = [];

  /** The next `count` requests the options match are refused (after the limits already set). */
  add(count: number, options: Omit<RateLimit, "remaining"> = {}): void {
    if (count > 0) this.#queue.push({ remaining: count, ...options });
  }

  /** The limit refusing this request, counted as used; undefined when the request may pass. */
  take(path: string, method?: string): RateLimit | undefined {
    const limit = this.#queue[0];
    if (limit === undefined) return undefined;
    if ((limit.method ?? method) !== method || !(limit.path?.test(path) ?? true)) return undefined;
    if (--limit.remaining <= 0) this.#queue.shift();
    return limit;
  }
}
