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
  if (readByPerson()) {
    return pino(
      base,
      // Colours follow the terminal (or FORCE_COLOR / NO_COLOR): a file written under `npm start` gets none.
      pretty({ translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname,service", sync: true }),
    );
  }
  return pino(base, pino.destination({ dest: 1, sync: true }));
}

/**
 * Whether a person reads the output: stdout is a terminal, or SWITCHBOARD_TTY=1 says so (`npm start` pipes each
 * service's output to prefix it, and always sets it: people run it, in a terminal or not).
 */
function readByPerson(): boolean {
  return process.stdout.isTTY === true || process.env.SWITCHBOARD_TTY === "1";
}
