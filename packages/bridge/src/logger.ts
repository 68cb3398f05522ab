// Structured logs with pino: JSON lines, or human-readable lines when stdout is a terminal.
import { type DestinationStream, type Logger, pino } from "pino";
import pretty from "pino-pretty";

export function createLogger(options: { debug: boolean; destination?: DestinationStream }): Logger {
  const level = options.debug ? "debug" : "info";
  const base = {
    level,
    base: { service: "bridge" },
    redact: { paths: ["token", "*.token", "headers.authorization"], censor: "[redacted]" },
  };
  if (options.destination) return pino(base, options.destination);
  if (process.stdout.isTTY) {
    return pino(
      base,
      pretty({ colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname,service", sync: true }),
    );
  }
  return pino(base, pino.destination({ dest: 1, sync: true }));
}
