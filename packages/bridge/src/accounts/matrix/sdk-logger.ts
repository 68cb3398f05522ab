// matrix-js-sdk logs every request through loglevel to the console. Its process-wide logger is silenced (the bridge
// writes JSON lines to stdout); each client gets this adapter instead, which writes the client's lines to the
// account's pino logger at debug level (shown with -debug).
import { thrownMessage } from "@switchboard/common";
import type { Logger as SdkLogger } from "matrix-js-sdk/lib/logger.js";
import { logger as sdkRootLogger } from "matrix-js-sdk/lib/logger.js";
import type { Logger } from "pino";

// It is a loglevel logger; its published type leaves setLevel out.
(sdkRootLogger as unknown as { setLevel(level: string): void }).setLevel("silent");

export function sdkLogger(logger: Logger, prefix = ""): SdkLogger {
  const write =
    (level: string) =>
    (...parts: unknown[]) => {
      if (!logger.isLevelEnabled("debug")) return;
      const text = parts.map(thrownMessage).join(" ");
      logger.debug({ sdk: level }, `matrix-js-sdk: ${prefix}${text}`);
    };
  return {
    trace: write("trace"),
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    getChild: (namespace: string) => sdkLogger(logger, `${prefix}${namespace} `),
  };
}
