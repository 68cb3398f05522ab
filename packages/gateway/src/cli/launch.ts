// What the bin runs (bin/switchboard-gateway.cjs), built into dist/bundle/launch.cjs: a small CommonJS script that
// runs the command line (program.ts) from its own bundle, dist/bundle/program.cjs, with V8's code cache
// (@switchboard/common/code-cache; written once `serve` listens). CommonJS from the bin on: Node then never starts
// its ES module loader, which cost 10-20 ms of CPU at every start.
import { loadCachedBundle } from "@switchboard/common/code-cache";
import { enableCompileCache } from "@switchboard/common/compile-cache";

// Node's compile cache (22.1+) for what loads from node_modules later (mDNS, Redis, pino-pretty).
enableCompileCache();

const PROGRAM_BUNDLE = new URL("../bundle/program.cjs", import.meta.url);
const bundle = loadCachedBundle<typeof import("./program.ts")>(PROGRAM_BUNDLE, "gateway");
if (bundle === undefined) throw new Error(`${PROGRAM_BUNDLE.pathname} is missing; run \`npm run build\` first`);
// A failure rejects, and Node ends the process with it (exit code 1), as with the ES entry's top-level await.
void bundle.exports.runProgram(process.argv, { served: () => bundle.started() });
