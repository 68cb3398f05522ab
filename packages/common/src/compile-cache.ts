// Node's on-disk compile cache (Node 22.1+; a no-op on Node 20, which lacks it): V8's compiled code of every module
// loaded after this call is kept on disk and reused by the next start, which then skips most of the parsing and
// compiling. The cache lives in the user's own cache folder, never in the shared temporary folder (another user could
// plant entries there) nor beside the installed package (often read-only). Node checks each entry against the
// module's source, so an upgraded package just misses. When the folder cannot be created the cache stays off and
// nothing else changes. NODE_COMPILE_CACHE=<dir> picks the folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import module from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";

interface CacheApi {
  enableCompileCache?(directory?: string): unknown;
  flushCompileCache?(): void;
}
const api = module as unknown as CacheApi;

/** `${XDG_CACHE_HOME:-~/.cache}/switchboard`: the user's own cache folder (undefined for a user without a home). */
export function switchboardCacheHome(): string | undefined {
  let home = process.env.XDG_CACHE_HOME;
  try {
    home ||= join(homedir(), ".cache");
  } catch {
    return undefined;
  }
  return join(home, "switchboard");
}

function cacheDirectory(): string | undefined {
  if (process.env.NODE_COMPILE_CACHE) return process.env.NODE_COMPILE_CACHE;
  const home = switchboardCacheHome();
  return home === undefined ? undefined : join(home, "node-compile-cache");
}

/** Call before importing the rest of the service: only modules loaded afterwards are cached. */
export function enableCompileCache(): void {
  const directory = cacheDirectory();
  if (api.enableCompileCache === undefined || directory === undefined) return;
  try {
    api.enableCompileCache(directory);
  } catch {
    // A cache is an optimisation: whatever stops it leaves start-up as it was.
  }
}

/**
 * Writes what was compiled so far (Node writes it at exit otherwise, which a killed process never reaches). Called
 * once started: the next start finds the start-up modules even if this one ends with SIGKILL.
 */
export function flushCompileCache(): void {
  try {
    api.flushCompileCache?.();
  } catch {
    // As above.
  }
}
