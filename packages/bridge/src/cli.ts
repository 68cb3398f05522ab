// switchboard-bridge from the sources (node --import tsx src/cli.ts): the command line (command-line.ts) running the
// run.ts module. The bin runs launch.ts instead, built into dist/bundle/launch.cjs (scripts/build.mjs).
import { enableCompileCache } from "@switchboard/common/compile-cache";

// First: the compile cache only covers modules loaded after it is on.
enableCompileCache();
const { runCommandLine } = await import("./command-line.ts");
await runCommandLine(process.argv.slice(2), () => import("./run.ts"));
