// switchboard-gateway: turns on Node's compile cache first (cli/compile-cache.ts: it only covers modules loaded after
// it), then runs the command line.
import { enableCompileCache } from "@switchboard/common/compile-cache";

enableCompileCache();
await import("./cli/program.ts");
