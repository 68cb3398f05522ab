import type { DestinationStream } from "pino";

/** Outputs holding lines not yet written; written out when the process exits. */
const holding = new Set<TurnBatchedOutput>();
let exitHooked = false;

/**
 * Lines written during one event-loop turn go out together in one write at the end of the turn. Under load, a log
 * line per request written on its own costs a system call per request (docs/benchmarks.md, "Figures behind the
 * code"). The write itself stays synchronous, and lines still held when the process exits are written then, so a
 * crash or an exit loses nothing (a SIGKILL at most the lines of the turn it interrupts).
 */
export class TurnBatchedOutput implements DestinationStream {
  #pending: string[] = [];
  #scheduled = false;
  readonly #out: DestinationStream;

  constructor(out: DestinationStream) {
    this.#out = out;
    if (!exitHooked) {
      exitHooked = true;
      process.on("exit", () => {
        for (const output of holding) output.flushSync();
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

  flushSync(): void {
    holding.delete(this);
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    this.#out.write(pending.length === 1 ? pending[0]! : pending.join(""));
  }
}
