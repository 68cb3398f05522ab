// Types for the three undici modules the backends import one by one (undici ships types for its index only). Its
// index also loads fetch, cookies, WebSocket, the cache and the mocks: about 1 MB of bundled code compiled at every
// start for a Pool, its request() and its error classes.
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

declare module "undici/lib/core/errors.js" {
  import { errors } from "undici";

  const undiciErrors: typeof errors;
  export default undiciErrors;
}
