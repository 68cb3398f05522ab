// Running the bridge once the command line is read: load and check the config, open the state file, start the
// accounts and the router, stop cleanly on SIGTERM/SIGINT. The bins run this module from its own CommonJS bundle
// with V8's code cache (dist/bundle/run.cjs, @switchboard/common/code-cache); cli.ts imports it otherwise.
import { resolve } from "node:path";
import { thrownMessage } from "@switchboard/common";
import { flushCompileCache } from "@switchboard/common/compile-cache";
import { PROTOCOLS } from "./accounts/registry.ts";
import type { CliArgs } from "./args.ts";
import { Bridge } from "./bridge.ts";
import { ConfigError } from "./config/errors.ts";
import { loadConfig } from "./config/load.ts";
import { openStateStore, StateFileError } from "./core/open-state.ts";
import { createLogger } from "./logger.ts";
import { shutdownHandler } from "./shutdown.ts";
import { VERSION } from "./version.ts";

const NAME = "switchboard-bridge";

function die(message: string, code: number): never {
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(code);
}

/**
 * Resolves once every account made its first connect attempt; a config or state file error exits with 1 before.
 * `answering` is called once the api accounts (and the status endpoint) are up.
 */
export async function runBridge(
  args: Pick<CliArgs, "conf" | "debug">,
  hooks: { answering?(): void } = {},
): Promise<void> {
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
    await bridge.start(hooks);
  } catch (error) {
    die(thrownMessage(error), 1);
  }
  flushCompileCache();
}
