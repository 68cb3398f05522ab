// Where a service's log lines go and how they look: JSON lines (what machines read) by default, human-readable lines
// when a person reads them. Human-readable lines are written synchronously; JSON lines a turn of the event loop at a
// time, without waiting for the reader (see TurnBatchedOutput): what is held is written when the process exits.
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

/** Log text waiting for a slow reader of stdout, at most. */
const MAX_HELD_BYTES = 16 * 1024 * 1024;

/**
 * Human-readable lines (colours only where supported: a terminal, or FORCE_COLOR), or JSON lines. `ignore` names
 * fields the readable form leaves out.
 */
export function logOutput(humanReadable: boolean, ignore = "pid,hostname"): DestinationStream {
  if (humanReadable) return pretty({ destination: 1, sync: true, ignore, translateTime: "SYS:HH:MM:ss.l" });
  // Asynchronous: a reader of stdout that falls behind (a busy log shipper, a full pipe) must not stall the service's
  // event loop, as a synchronous write would; past MAX_HELD_BYTES waiting, lines are dropped rather than held.
  return new TurnBatchedOutput(pino.destination({ dest: 1, sync: false, maxLength: MAX_HELD_BYTES }));
}
