import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import type { LoggingSettings } from "./config/types.ts";

/** JSON lines, or human-readable lines on a terminal (or with format = "pretty"). Written synchronously to stdout. */
export function createLogger(settings: LoggingSettings, destination: NodeJS.WritableStream = process.stdout): Logger {
  const usePretty = settings.format === "pretty" || (settings.format === undefined && readByPerson());
  const options = { level: settings.level, base: undefined, redact: ["req.headers.authorization", "*.apiKey"] };
  if (usePretty) {
    return pino(
      options,
      pretty({ destination: 1, sync: true, ignore: "pid,hostname", translateTime: "SYS:HH:MM:ss.l" }),
    );
  }
  return pino(options, destination === process.stdout ? pino.destination({ dest: 1, sync: true }) : destination);
}

/**
 * Whether a person reads the output: stdout is a terminal, or SWITCHBOARD_TTY=1 says so (`npm start` pipes each
 * service's output to prefix it, and sets it when its own stdout is a terminal).
 */
function readByPerson(): boolean {
  return process.stdout.isTTY === true || process.env.SWITCHBOARD_TTY === "1";
}
