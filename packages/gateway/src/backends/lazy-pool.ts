import type { Dispatcher, Pool } from "undici";

/** undici's Pool and request() (Dispatcher.prototype.request, called with the pool as `this`). */
interface Undici {
  Pool: typeof Pool;
  request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
}

let undici: Undici | undefined;
let loading: Promise<Undici> | undefined;

/**
 * undici's modules, loaded by the first pool that is used (module by module, not its index: see
 * undici-modules.d.ts). A gateway whose backends are all `http:` may never need them, and evaluating them costs about
 * 11 ms of CPU at start. The bundle inlines them and evaluates them here, on first use.
 */
function loadUndici(): Promise<Undici> {
  loading ??= Promise.all([import("undici/lib/dispatcher/pool.js"), import("undici/lib/api/api-request.js")]).then(
    ([pool, request]) => {
      undici = { Pool: pool.default, request: request.default };
      return undici;
    },
  );
  return loading;
}

/** Whether undici's modules have been loaded in this process (for tests). */
export function isUndiciLoaded(): boolean {
  return undici !== undefined;
}

/**
 * An undici Pool to one origin, made on first use. Closing one never made does nothing (and makes none); a pool
 * first needed after close() is made closed, so that its requests fail as a closed pool's do.
 */
export class LazyPool {
  #pool: Pool | undefined;
  #closed = false;

  constructor(
    private readonly origin: string,
    private readonly options: Pool.Options,
  ) {}

  /** Whether the pool has been made (for tests). */
  get created(): boolean {
    return this.#pool !== undefined;
  }

  /** The pool when it exists or can be made at once (undici already loaded); undefined when it must be loaded. */
  now(): Pool | undefined {
    return this.#pool ?? (undici === undefined ? undefined : this.#make(undici));
  }

  /** The pool, loading undici first when needed. */
  async ready(): Promise<Pool> {
    return this.now() ?? this.#make(await loadUndici());
  }

  /** undici's request() on this pool. */
  async request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    const pool = this.now() ?? (await this.ready());
    return (undici as Undici).request.call(pool, options);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#pool?.close();
  }

  #make(loaded: Undici): Pool {
    if (this.#pool === undefined) {
      this.#pool = new loaded.Pool(this.origin, this.options);
      // Already closed: no connection is ever opened, and what is asked of it fails with undici's ClientClosedError.
      if (this.#closed) this.#pool.close().catch(() => {});
    }
    return this.#pool;
  }
}
