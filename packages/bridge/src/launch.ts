// What the bin runs (bin/switchboard-bridge.cjs), built into dist/bundle/launch.cjs: a small CommonJS script that
// reads the command line (command-line.ts) and runs the bridge from its own bundle, dist/bundle/run.cjs, with V8's
// code cache (@switchboard/common/code-cache). CommonJS from the bin on: Node then never starts its ES module
// loader, which cost 10-20 ms of CPU at every start.
import { enableCompileCache } from "@switchboard/common/compile-cache";
import { runCommandLine } from "./command-line.ts";

// Node's compile cache (22.1+) for what loads from node_modules later (better-sqlite3, the protocol libraries).
enableCompileCache();

const RUN_BUNDLE = new URL("./bundle/run.cjs", import.meta.url);

// A failure rejects, and Node ends the process with it (exit code 1), as with the ES entry's top-level await.
void runCommandLine(process.argv.slice(2), async () => {
  // Only to run: -version and -help need neither the bundle nor node:crypto (the cache's key).
  const { loadCachedBundle } = await import("@switchboard/common/code-cache");
  const bundle = loadCachedBundle<typeof import("./run.ts")>(RUN_BUNDLE, "bridge");
  if (bundle === undefined) throw new Error(`${RUN_BUNDLE.pathname} is missing; run \`npm run build\` first`);
  return { runBridge: bundle.exports.runBridge, answering: () => bundle.started() };
});
