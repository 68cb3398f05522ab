import { writeSync } from "node:fs";

/** Text the reader has not taken yet, at most, before writes wait for it. */
const MAX_HELD_BYTES = 4 * 1024 * 1024;
/** How long to wait before offering held text again, and between tries while waiting for the reader. */
const RETRY_MS = 5;
/** At exit, the reader is waited for this long at most: a reader that never reads must not keep the process. */
const EXIT_WAIT_MS = 5_000;

/** Writers holding text; written out when the process exits. */
const holding = new Set<PatientFdWriter>();
let exitHooked = false;

const pause = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number) => Atomics.wait(pause, 0, 0, ms);

/**
 * Writes text to a file descriptor that may be a non-blocking pipe: once anything looks at `process.stdout`, Node
 * makes the stdout pipe non-blocking, and a synchronous writer that meets EAGAIN sleeps (pino's sleeps 100 ms),
 * freezing the event loop whenever the reader falls behind for a moment. Here, what the pipe does not take now is
 * held, in order, and offered again a few milliseconds later. Nothing is dropped: past MAX_HELD_BYTES held, a write
 * waits for the reader; at exit, held text is written, waiting for the reader up to EXIT_WAIT_MS. A reader that is
 * gone (EPIPE) ends the output.
 */
export class PatientFdWriter {
  readonly #fd: number;
  #held: Buffer[] = [];
  #heldBytes = 0;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(fd: number) {
    this.#fd = fd;
  }

  write(text: string): void {
    if (this.#closed) return;
    if (this.#heldBytes > 0) {
      this.#hold(Buffer.from(text));
      if (this.#heldBytes > MAX_HELD_BYTES) this.#writeHeld(Number.POSITIVE_INFINITY);
      return;
    }
    const rest = this.#offer(text);
    if (rest !== undefined) this.#hold(rest);
  }

  /** Writes everything held, waiting for the reader up to EXIT_WAIT_MS (at exit). */
  flushSync(): void {
    this.#writeHeld(EXIT_WAIT_MS);
  }

  /** Writes what the descriptor takes now; returns the part it did not take. */
  #offer(text: string | Buffer): Buffer | undefined {
    let bytes = typeof text === "string" ? undefined : text;
    let written = 0;
    try {
      if (typeof text === "string") {
        // The usual case: the whole text taken at once, without encoding it into a buffer first.
        written = writeSync(this.#fd, text);
        if (written === Buffer.byteLength(text)) return undefined;
        bytes = Buffer.from(text);
      }
      while (written < bytes!.length) written += writeSync(this.#fd, bytes!, written);
      return undefined;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") return (bytes ?? Buffer.from(text)).subarray(written);
      // The reader is gone (EPIPE) or the descriptor unusable: nobody will read the rest.
      this.#close();
      return undefined;
    }
  }

  #hold(bytes: Buffer): void {
    if (!exitHooked) {
      exitHooked = true;
      process.on("exit", () => {
        for (const writer of holding) writer.flushSync();
      });
    }
    holding.add(this);
    this.#held.push(bytes);
    this.#heldBytes += bytes.length;
    this.#retry ??= setTimeout(() => {
      this.#retry = undefined;
      this.#writeHeld(0);
    }, RETRY_MS);
  }

  /** Offers the held text in order; waits for the reader up to `waitMs` before holding the rest again. */
  #writeHeld(waitMs: number): void {
    const deadline = Date.now() + waitMs;
    const held = this.#held;
    this.#held = [];
    this.#heldBytes = 0;
    holding.delete(this);
    for (let index = 0; index < held.length; index++) {
      let rest: Buffer | undefined = held[index];
      while (rest !== undefined && !this.#closed) {
        rest = this.#offer(rest);
        if (rest === undefined) break;
        if (Date.now() >= deadline) {
          for (const bytes of [rest, ...held.slice(index + 1)]) this.#hold(bytes);
          return;
        }
        sleep(RETRY_MS);
      }
    }
  }

  #close(): void {
    this.#closed = true;
    holding.delete(this);
    this.#held = [];
    this.#heldBytes = 0;
    if (this.#retry) clearTimeout(this.#retry);
  }
}
