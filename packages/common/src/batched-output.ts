import type { DestinationStream } from "pino";

/** Outputs holding lines not yet written; written out when the process exits. */
const holding = new Set<BatchedOutput>();
let exitHooked = false;

/** Where the lines go: a writer that may hold them too (PatientFdWriter), flushed at exit. */
type Destination = DestinationStream & { flushSync?(): void };

/** Lines are held this long at most before they are written, together. */
const BATCH_MS = 10;

/**
 * Lines written within BATCH_MS of each other go out together in one write. Under load, a log line per request
 * written on its own costs a system call per request, and even one write per event-loop turn was about 8 % of the
 * gateway's CPU at 32 connections (docs/benchmarks.md, "Figures behind the code"). Lines still held when the process
 * exits are written then, synchronously, so an exit or a crash loses nothing (a SIGKILL at most the last BATCH_MS).
 */
export class BatchedOutput implements DestinationStream {
  #pending: string[] = [];
  #scheduled = false;
  readonly #out: Destination;

  constructor(out: Destination) {
    this.#out = out;
    if (!exitHooked) {
      exitHooked = true;
      process.on("exit", () => {
        for (const output of holding) output.#flushAtExit();
      });
    }
  }

  write(line: string): void {
    this.#pending.push(line);
    if (this.#scheduled) return;
    this.#scheduled = true;
    holding.add(this);
    setTimeout(this.#endOfBatch, BATCH_MS);
  }

  readonly #endOfBatch = (): void => {
    this.#scheduled = false;
    this.flushSync();
  };

  /** Writes what is held now (pino calls it from `logger.flush()`). */
  flush(callback?: (error?: Error) => void): void {
    this.flushSync();
    callback?.();
  }

  #flushAtExit(): void {
    try {
      this.flushSync();
      this.#out.flushSync?.();
    } catch {
      // The destination was closed already (it ended when the event loop emptied): nothing left to write to.
    }
  }

  flushSync(): void {
    holding.delete(this);
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    this.#out.write(pending.length === 1 ? pending[0]! : pending.join(""));
  }
}
