// Slack's libraries log through a Logger of their own (to the console by default). Each client gets this adapter,
// which writes their lines to the account's pino logger at debug level (shown with -debug): the bridge reports what
// matters itself, from the errors the libraries throw.
import { LogLevel, type Logger as SlackLogger } from "@slack/web-api";
import { thrownMessage } from "@switchboard/common";
import type { Logger } from "pino";

export function slackLogger(logger: Logger, library: string): SlackLogger {
  const write = (...parts: unknown[]) => {
    if (!logger.isLevelEnabled("debug")) return;
    const text = parts.map(thrownMessage).join(" ");
    logger.debug(`${library}: ${text}`);
  };
  return {
    debug: write,
    info: write,
    warn: write,
    error: write,
    setLevel: () => {},
    getLevel: () => (logger.isLevelEnabled("debug") ? LogLevel.DEBUG : LogLevel.INFO),
    setName: () => {},
  };
}
