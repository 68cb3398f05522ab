import { flushCompileCache } from "@switchboard/common/compile-cache";
import { type RunningGateway, startGateway } from "../gateway.ts";
import { loadConfig } from "../load-config.ts";
import { createLogger } from "../logger.ts";

export interface ServeOptions {
  config?: string;
  host?: string;
  port?: string;
  logLevel?: string;
}

/** How long after the grace period a shutdown may still take (closing backend pools) before the process exits anyway. */
const EXIT_MARGIN_MS = 5_000;

/**
 * `serve`: load the config, start, print where it listens. On SIGTERM/SIGINT, in-flight requests get
 * server.shutdown_grace_seconds; the exit code is 0 when all finished, 1 when some had to be cut.
 */
export async function serveCommand(options: ServeOptions): Promise<void> {
  const config = loadConfig({
    path: options.config,
    host: options.host,
    port: options.port,
    logLevel: options.logLevel,
  });
  const logger = createLogger(config.logging);
  logger.info(`configuration: ${config.source} (${config.backends.length} backend(s))`);
  // The handlers come before the start: the gateway listens while its first probes run (fleet/first-round.ts), and a
  // signal then stops it once started, gracefully, rather than killing it with requests held.
  let gateway: RunningGateway | undefined;
  let signalled: NodeJS.Signals | undefined;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    if (gateway === undefined) {
      signalled ??= signal;
      return;
    }
    stopping = true;
    const graceSeconds = config.server.shutdown_grace_seconds;
    logger.info(`${signal}: shutting down (in-flight requests get ${graceSeconds} s)`);
    const timer = setTimeout(() => process.exit(1), graceSeconds * 1000 + EXIT_MARGIN_MS);
    timer.unref();
    gateway.close().then(
      ({ cut }) => {
        if (cut > 0) logger.warn(`${cut} request(s) were cut off after the ${graceSeconds} s grace period`);
        process.exit(cut > 0 ? 1 : 0);
      },
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  gateway = await startGateway(config, logger);
  // Printed once the signals are handled: whoever waits for this line may stop the gateway right away.
  logger.info(`switchboard-gateway listening on ${gateway.url}`);
  flushCompileCache();
  if (signalled !== undefined) stop(signalled);
}
