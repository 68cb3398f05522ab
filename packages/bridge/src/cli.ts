// switchboard-bridge: reads the command line; -version and -help answer at once, anything else runs the bridge
// (run.ts: loads matterbridge.toml, starts the accounts and the router, stops cleanly on SIGTERM/SIGINT).
import { enableCompileCache } from "@switchboard/common/compile-cache";

// First: the compile cache only covers modules loaded after it is on.
enableCompileCache();
const [{ parseArgs, USAGE, UsageError }, { VERSION }] = await Promise.all([
  import("./args.ts"),
  import("./version.ts"),
]);

const NAME = "switchboard-bridge";

function die(message: string, code: number): never {
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) die(`${error.message}\n${USAGE}`, 2);
    throw error;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (args.version) {
    process.stdout.write(
      `${NAME} version ${VERSION} (matterbridge-compatible config and API) node ${process.version}\n`,
    );
    return;
  }

  // Loaded only to run: -version and -help stay as fast as bare node (the accounts pull in fastify, ws, zod, pino).
  // From its own bundle with V8's code cache when built (dist/bundle/run.cjs), from the module otherwise (sources).
  const { loadCachedBundle } = await import("@switchboard/common/code-cache");
  const bundle = loadCachedBundle<typeof import("./run.ts")>(new URL("./bundle/run.cjs", import.meta.url), "bridge");
  const { runBridge } = bundle?.exports ?? (await import("./run.ts"));
  // The cache is written a second after the api listens (by then the protocols' first connects ran too), or at exit.
  await runBridge(args, { answering: () => bundle?.started() });
}

await main();
