import { logOutput, readByPerson } from "@switchboard/common";
import pino, { type Logger } from "pino";
import type { LoggingSettings } from "./config/types.ts";

/** JSON lines, or human-readable lines when a person reads them (or with format = "pretty"). */
export function createLogger(settings: LoggingSettings, destination: NodeJS.WritableStream = process.stdout): Logger {
  const humanReadable = settings.format === "pretty" || (settings.format === undefined && readByPerson());
  const options = { level: settings.level, base: undefined, redact: ["req.headers.authorization", "*.apiKey"] };
  if (!humanReadable && destination !== process.stdout) return pino(options, destination);
  return pino(options, logOutput(humanReadable));
}
