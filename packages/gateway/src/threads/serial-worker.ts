import type { Transferable, Worker } from "node:worker_threads";

interface Job<Reply> {
  message: unknown;
  transfer: Transferable[];
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
}

/**
 * A worker thread that does its jobs one at a time, in order, for work too long for the event loop (parsing and
 * re-encoding large request bodies, counting tokens). At most `inFlight` jobs are posted to it ahead of their replies.
 * Workers whose replies can be large keep the default, 1: taking in a parsed 10 MB text costs the event loop ~10 ms,
 * and the port hands over every reply waiting on it in one loop turn. Workers whose replies are small (a number) post
 * more, so that a burst of jobs does not wait for a round trip each. The worker starts on the first job, does not keep
 * the process alive while idle, and is started again if it dies (the jobs it had fail).
 */
export class SerialWorker<Reply> {
  #worker: Worker | undefined;
  /** Posted to the worker, oldest first: the worker answers in order. */
  readonly #posted: Job<Reply>[] = [];
  readonly #waiting: Job<Reply>[] = [];

  constructor(
    private readonly create: () => Worker,
    private readonly inFlight = 1,
  ) {}

  /** Sends `message` (with `transfer` moved, not copied) and resolves with the worker's one reply to it. */
  run(message: unknown, transfer: Transferable[] = []): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ message, transfer, resolve, reject });
      this.#post();
    });
  }

  #post(): void {
    while (this.#posted.length < this.inFlight) {
      const job = this.#waiting.shift();
      if (!job) break;
      const worker = this.#start();
      worker.ref();
      this.#posted.push(job);
      worker.postMessage(job.message, job.transfer);
    }
    if (this.#posted.length === 0) this.#worker?.unref();
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = this.create();
    worker.unref();
    worker.on("message", (reply: Reply) => {
      const job = this.#worker === worker ? this.#posted.shift() : undefined;
      if (!job) return;
      job.resolve(reply);
      this.#post();
    });
    worker.on("error", (error) => this.#fail(worker, error));
    worker.on("exit", () => this.#fail(worker, new Error("the worker thread stopped")));
    this.#worker = worker;
    return worker;
  }

  /** The worker died: the jobs it had and every waiting one fail; the next job starts a new worker. */
  #fail(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    const jobs = this.#posted.splice(0).concat(this.#waiting.splice(0));
    for (const job of jobs) job.reject(error);
  }

  /** Stops the worker; jobs not answered yet fail. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    this.#fail(worker, new Error("the worker thread was closed"));
    await worker.terminate();
  }
}

/** Bytes to hand to a worker: where they are when in shared memory (only read there), else a copy it owns. */
export function bytesForWorker(raw: Buffer): {
  bytes: { buffer: ArrayBufferLike; offset: number; length: number };
  transfer: Transferable[];
} {
  if (raw.buffer instanceof SharedArrayBuffer) {
    return { bytes: { buffer: raw.buffer, offset: raw.byteOffset, length: raw.length }, transfer: [] };
  }
  const { buffer } = new Uint8Array(raw);
  return { bytes: { buffer, offset: 0, length: raw.length }, transfer: [buffer] };
}
