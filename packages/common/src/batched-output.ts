import type { DestinationStream } from "pino";

/** Outputs holding lines not yet written; written out when the process exits. */
const holding = new Set<BatchedOutput>();
let exitHooked = false;

/** Where the lines go: a writer that may hold them too (PatientFdWriter), flushed at exit. */
type Destination = DestinationStream & { flushSync?(): void };

/**
 * Lines written during one event-loop turn go out together in one write at the end of the turn. Under load, a log
 * line per request written on its own costs a system call per request (docs/benchmarks.md, "Figures behind the
 * code"). Holding lines longer (10 ms) saved more CPU but made every line late by that much, and tools and tests
 * that read a line right after what it reports then miss it. Lines still held when the process exits are written
 * then, synchronously, so an exit or a crash loses nothing (a SIGKILL at most the lines of the turn it interrupts).
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
    setImmediate(this.#endOfTurn);
  }

  readonly #endOfTurn = (): void => {
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
