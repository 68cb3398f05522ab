// switchboard-bridge: loads matterbridge.toml, starts the accounts and the router, stops cleanly on SIGTERM/SIGINT.
import { resolve } from "node:path";
import { enableCompileCache, flushCompileCache } from "@switchboard/common/compile-cache";

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
  const [
    { PROTOCOLS },
    { Bridge },
    { ConfigError },
    { loadConfig },
    { createLogger },
    { shutdownHandler },
    { openStateStore, StateFileError },
  ] = await Promise.all([
    import("./accounts/registry.ts"),
    import("./bridge.ts"),
    import("./config/errors.ts"),
    import("./config/load.ts"),
    import("./logger.ts"),
    import("./shutdown.ts"),
    import("./core/open-state.ts"),
  ]);
  const path = resolve(args.conf);
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(path, { protocols: PROTOCOLS });
  } catch (error) {
    if (error instanceof ConfigError) die(`config error: ${error.message}`, 1);
    throw error;
  }

  let state: ReturnType<typeof openStateStore>;
  try {
    state = openStateStore(config.general.StateFile, path);
  } catch (error) {
    if (error instanceof StateFileError) die(error.message, 1);
    throw error;
  }

  const logger = createLogger({ debug: args.debug });
  logger.info(`${NAME} ${VERSION} using ${path}`);
  if (state.path !== undefined) logger.info({ stateFile: state.path }, `state kept in ${state.path}`);
  const bridge = await Bridge.load(config, { logger, debug: args.debug, state });

  const stop = shutdownHandler({
    bridge,
    logger,
    graceSeconds: config.general.ShutdownTimeout,
    exit: (code) => process.exit(code),
  });
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.on("uncaughtException", (error) => {
    logger.fatal({ err: error }, "uncaught exception");
    process.exit(1);
  });

  try {
    await bridge.start();
  } catch (error) {
    die(error instanceof Error ? error.message : String(error), 1);
  }
  flushCompileCache();
}

await main();
