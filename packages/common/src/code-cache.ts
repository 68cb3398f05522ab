// Runs a service's start-up bundle (dist/bundle/<name>.cjs: one CommonJS file, built by scripts/build.mjs) with V8's
// code cache: the first start compiles it as usual and, once the service is up, keeps the code V8 compiled (the
// bundle's top level and every function start-up called) in the user's cache folder; the next start hands it to V8
// and skips most of the parsing and compiling. Node's own compile cache (22.1+, compile-cache.ts) does not exist on
// Node 20 and keeps less (about 220 ms of CPU against 420 for the gateway to its first answer on Node 24).
// The cache holds code only, never state: the bundle is evaluated at every start, so the environment, the arguments,
// the clock and the files are read at run time as without it. An entry is keyed by the SHA-256 of the bundle's source
// with the Node version, V8 version and architecture; V8 refuses on its own an entry made with other V8 flags. A
// missing, stale, corrupt or refused entry means a normal start (that start writes a fresh one).
// NODE_COMPILE_CACHE=<dir> moves the folder (to <dir>/switchboard-v8), NODE_DISABLE_COMPILE_CACHE=1 turns it off, as
// for Node's cache.
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { type CodeCacheEntry, codeCacheEntry } from "./code-cache-store.ts";
import { switchboardCacheHome } from "./compile-cache.ts";

/** After start-up, when the cache is written: the first requests go first. */
const WRITE_DELAY_MS = 1_000;

export interface CachedBundle<T> {
  exports: T;
  /** Whether V8 took this start's code from the cache. */
  readonly fromCache: boolean;
  /**
   * Call once the service is up: unless this start came from the cache, the code compiled so far is written
   * WRITE_DELAY_MS later, or at exit if that comes first (a start stopped right away still leaves its cache).
   */
  started(): void;
}

function cacheFolder(): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  if (process.env.NODE_COMPILE_CACHE) return join(process.env.NODE_COMPILE_CACHE, "switchboard-v8");
  const home = switchboardCacheHome();
  return home === undefined ? undefined : join(home, "v8-code-cache");
}

/** Node's CommonJS module wrapper; part of the key (through WRAPPER_VERSION) since it is part of the compiled code. */
const wrap = (source: string) => `(function (exports, require, module, __filename, __dirname) { ${source}\n})`;
const WRAPPER_VERSION = 1;

function entryFor(name: string, bytes: Buffer): CodeCacheEntry | undefined {
  const folder = cacheFolder();
  if (folder === undefined) return undefined;
  const key = createHash("sha256")
    .update(`${WRAPPER_VERSION} ${process.version} ${process.versions.v8} ${process.arch}\n`)
    .update(bytes)
    .digest("hex")
    .slice(0, 32);
  return codeCacheEntry(folder, name, key);
}

/**
 * Evaluates the CommonJS bundle at `url` and returns its exports, or undefined when there is no such file (running
 * from the sources: the caller imports the module instead). `name` names its cache entries.
 */
export function loadCachedBundle<T>(url: URL, name: string): CachedBundle<T> | undefined {
  const file = fileURLToPath(url);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const entry = entryFor(name, bytes);
  const cachedData = entry?.read();
  // The build escapes what is not ASCII (scripts/build.mjs): decoded as Latin-1 it is a one-byte string, which is
  // quicker to make and to compile than UTF-8's two-byte one.
  const source = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
  const script = new vm.Script(wrap(source), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const fromCache = cachedData !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as T };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));

  let scheduled = false;
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    process.removeListener("exit", write);
    try {
      entry?.write(script.createCachedData());
    } catch {
      // A cache is an optimisation: without it the next start compiles, as this one did.
    }
  };
  return {
    exports: module.exports,
    fromCache,
    started() {
      if (fromCache || entry === undefined || scheduled) return;
      scheduled = true;
      setTimeout(write, WRITE_DELAY_MS).unref();
      process.once("exit", write);
    },
  };
}
