// Types for the two undici modules the backends import one by one, on first use (lazy-pool.ts; undici ships types for
// its index only). Its index also loads fetch, cookies, WebSocket, the cache and the mocks: about 1 MB of bundled code
// compiled at every start for a Pool and its request(). (Its error classes are told apart without loading it:
// network-errors.ts.)
declare module "undici/lib/dispatcher/pool.js" {
  import { Pool } from "undici";
  export default Pool;
}

declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";
  /** Dispatcher.prototype.request, which undici's index installs; called with the pool as `this`. */
  export default function request(
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
}
