import type { IncomingMessage } from "node:http";
import { nextScanTurn, spendScanBudget } from "./scan-budget.ts";

/** At most this much of a refused body is read and thrown away, so that the client can read the answer. */
export const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Reads and discards the rest of a request the server has already answered (413, or a body refused early), for at
 * most `maxBytes` and `timeoutMs`; past either the connection is closed. Closing at once instead would reset the
 * connection under a client that is still sending, which then reports EPIPE or ECONNRESET instead of the answer.
 * Reading counts against the event loop's per-turn budget for bodies: several clients sending megabytes each into
 * refused requests would otherwise hold one turn for tens of milliseconds.
 */
export function drainRequest(request: IncomingMessage, maxBytes: number, timeoutMs: number): void {
  if (request.complete || request.destroyed) return;
  const socket = request.socket;
  let drained = 0;
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  timer.unref();
  const done = () => clearTimeout(timer);
  request.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxBytes) {
      done();
      socket.destroy();
    } else if (!spendScanBudget(chunk.length)) {
      request.pause();
      nextScanTurn(() => request.resume());
    }
  });
  request.once("end", done);
  request.once("close", done);
  request.resume();
}
