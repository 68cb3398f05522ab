// Where a service's log lines go and how they look: JSON lines (what machines read) by default, human-readable lines
// when a person reads them. Lines are written a turn of the event loop at a time (BatchedOutput), never
// making the event loop sleep behind a slow reader of stdout (PatientFdWriter); nothing is lost when the process exits.
import { createRequire } from "node:module";
import type { DestinationStream } from "pino";
import type PinoPretty from "pino-pretty";
import { BatchedOutput } from "./batched-output.ts";
import { PatientFdWriter } from "./patient-fd-writer.ts";

/**
 * Whether a person reads the output: stdout is a terminal, or SWITCHBOARD_TTY=1 says so (`npm start` pipes each
 * service's output to prefix it, and always sets it: people run it, in a terminal or not).
 */
export function readByPerson(): boolean {
  return process.stdout.isTTY === true || process.env.SWITCHBOARD_TTY === "1";
}

/**
 * Human-readable lines (colours only where supported: a terminal, or FORCE_COLOR), or JSON lines. `ignore` names
 * fields the readable form leaves out.
 */
export function logOutput(humanReadable: boolean, ignore = "pid,hostname"): DestinationStream {
  if (humanReadable) {
    // Formatted in the logging call itself (pino-pretty's stream would add a transform stream and its own writer).
    // Loaded only for people: JSON output (services under a supervisor) never parses pino-pretty and its dependencies.
    const { prettyFactory } = createRequire(import.meta.url)("pino-pretty") as typeof PinoPretty;
    const format = prettyFactory({ ignore, translateTime: "SYS:HH:MM:ss.l" });
    const output = new BatchedOutput(new PatientFdWriter(1));
    return { write: (line: string) => output.write(format(line)) };
  }
  // Written on the event loop's thread, not through pino's asynchronous destination: its thread-pool hop cost more
  // CPU per request at one connection, where each write had one line (docs/benchmarks.md, gateway fast path).
  return new BatchedOutput(new PatientFdWriter(1));
}
