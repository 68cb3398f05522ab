// switchboard-gateway from the sources (node --import tsx src/cli.ts): turns on Node's compile cache first (it only
// covers modules loaded after it), then runs the command line. The bin runs cli/launch.ts instead, built into
// dist/bundle/launch.cjs (scripts/build.mjs).
import { enableCompileCache } from "@switchboard/common/compile-cache";

enableCompileCache();
const { runProgram } = await import("./cli/program.ts");
await runProgram(process.argv);
