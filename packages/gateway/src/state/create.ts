import type { StateSettings } from "../config/types.ts";
import { EmbeddedStore } from "./embedded.ts";
import type { StateStore } from "./types.ts";

export interface StoreHooks {
  /** The embedded file could not be written (kept in memory, retried). */
  onWriteError(error: unknown): void;
}

/** The configured store, connected (Redis: or given up waiting, then it keeps trying in the background). */
export async function createStateStore(settings: StateSettings, hooks: StoreHooks): Promise<StateStore> {
  if (settings.backend === "embedded") return new EmbeddedStore(settings.path, { onWriteError: hooks.onWriteError });
  // ioredis is loaded only by a gateway that uses it (start-up of the others does not parse it).
  const { RedisStore } = await import("./redis.ts");
  const store = new RedisStore({ url: settings.url, keyPrefix: settings.keyPrefix });
  await store.start();
  return store;
}
