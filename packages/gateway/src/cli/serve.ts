import { loadConfig } from "../config/load.ts";
import { startGateway } from "../gateway.ts";
import { createLogger } from "../logger.ts";

export interface ServeOptions {
  config?: string;
  host?: string;
  port?: string;
  logLevel?: string;
}

/** Grace period for in-flight requests on SIGTERM/SIGINT before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 3_000;

/** `serve`: load the config, start, print where it listens, stop cleanly on SIGTERM/SIGINT (exit 0). */
export async function serveCommand(options: ServeOptions): Promise<void> {
  const config = loadConfig({
    path: options.config,
    host: options.host,
    port: options.port,
    logLevel: options.logLevel,
  });
  const logger = createLogger(config.logging);
  logger.info(`configuration: ${config.source} (${config.backends.length} backend(s))`);
  const gateway = await startGateway(config, logger);
  logger.info(`switchboard-gateway listening on ${gateway.url}`);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal}: shutting down`);
    const timer = setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS);
    timer.unref();
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
