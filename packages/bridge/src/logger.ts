// Structured logs with pino: JSON lines, or human-readable lines when a person reads them (see @switchboard/common).
import { logOutput, readByPerson } from "@switchboard/common";
import { type DestinationStream, type Logger, pino } from "pino";

export function createLogger(options: { debug: boolean; destination?: DestinationStream }): Logger {
  const base = {
    level: options.debug ? "debug" : "info",
    base: { service: "bridge" },
    redact: { paths: ["token", "*.token", "headers.authorization"], censor: "[redacted]" },
  };
  return pino(base, options.destination ?? logOutput(readByPerson(), "pid,hostname,service"));
}
