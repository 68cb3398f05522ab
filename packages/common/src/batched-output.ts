import type { DestinationStream } from "pino";

/** Outputs holding lines not yet written; written out when the process exits. */
const holding = new Set<BatchedOutput>();
let exitHooked = false;

/** Where the lines go: a writer that may hold them too (PatientFdWriter), flushed at exit. */
type Destination = DestinationStream & { flushSync?(): void };

/**
 * Pacing of the writes: after a quiet spell a line goes out at the end of its event-loop turn; within WRITE_INTERVAL_MS
 * of the last write, lines wait until that interval has passed. Under load that is one write (a system call) per
 * interval instead of one per line or per turn: at one request at a time, a write per request cost the gateway about
 * a tenth of its CPU and came right when the next request arrived (docs/benchmarks.md, gateway fast path). A line is
 * thus at most this late, and readers of the output (tools, tests) wait for the line they expect rather than read
 * right after what it reports.
 */
export const WRITE_INTERVAL_MS = 10;

/**
 * Lines written close together go out together in one write (see WRITE_INTERVAL_MS). Lines still held when the
 * process exits are written then, synchronously, so an exit or a crash loses nothing (a SIGKILL at most the lines of
 * the last interval).
 */
export class BatchedOutput implements DestinationStream {
  #pending: string[] = [];
  #scheduled = false;
  #lastWriteAt = Number.NEGATIVE_INFINITY;
  readonly #out: Destination;
  readonly #intervalMs: number;

  constructor(out: Destination, intervalMs = WRITE_INTERVAL_MS) {
    this.#out = out;
    this.#intervalMs = intervalMs;
    if (!exitHooked) {
      exitHooked = true;
      process.on("exit", () => {
        for (const output of holding) output.#flushAtExit();
      });
    }
  }

  write(line: string): void {
    this.#pending.push(line);
    holding.add(this);
    if (this.#scheduled) return;
    this.#scheduled = true;
    const wait = this.#lastWriteAt + this.#intervalMs - performance.now();
    if (wait <= 0) setImmediate(this.#scheduledWrite);
    else setTimeout(this.#scheduledWrite, wait).unref();
  }

  readonly #scheduledWrite = (): void => {
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
    this.#lastWriteAt = performance.now();
    this.#out.write(pending.length === 1 ? pending[0]! : pending.join(""));
  }
}
