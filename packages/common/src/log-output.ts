// Where a service's log lines go and how they look: JSON lines (what machines read) by default, human-readable lines
// when a person reads them. Written synchronously to stdout, so that nothing is lost when the process exits; JSON
// lines a turn of the event loop at a time (see TurnBatchedOutput).
import type { DestinationStream } from "pino";
import pino from "pino";
import pretty from "pino-pretty";
import { TurnBatchedOutput } from "./turn-batched-output.ts";

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
  if (humanReadable) return pretty({ destination: 1, sync: true, ignore, translateTime: "SYS:HH:MM:ss.l" });
  // Synchronous, as Node writes to pipes on Linux: a reader that falls behind slows the service down rather than
  // making it hold lines without bound or drop them. An asynchronous write (pino's sync: false) cost more CPU per
  // request at one connection here, where each turn has one line to write (docs/benchmarks.md, gateway fast path).
  return new TurnBatchedOutput(pino.destination({ dest: 1, sync: true }));
}
