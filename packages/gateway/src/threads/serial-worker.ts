import type { Transferable, Worker } from "node:worker_threads";

interface Job<Reply> {
  message: unknown;
  transfer: Transferable[];
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
}

/**
 * A worker thread that does one job at a time, for work too long for the event loop (parsing and re-encoding large
 * request bodies). The next job is handed over only on the loop turn after a reply arrived: taking a reply in can
 * itself cost milliseconds, and several replies waiting on the port would all be taken in one turn. The worker starts
 * on the first job, does not keep the process alive while idle, and is started again if it dies (the jobs it had fail).
 */
export class SerialWorker<Reply> {
  #worker: Worker | undefined;
  readonly #queue: Job<Reply>[] = [];
  #current: Job<Reply> | undefined;

  constructor(private readonly create: () => Worker) {}

  /** Sends `message` (with `transfer` moved, not copied) and resolves with the worker's one reply to it. */
  run(message: unknown, transfer: Transferable[] = []): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ message, transfer, resolve, reject });
      if (!this.#current) this.#sendNext();
    });
  }

  #sendNext(): void {
    const job = this.#queue.shift();
    this.#current = job;
    if (!job) {
      this.#worker?.unref();
      return;
    }
    const worker = this.#start();
    worker.ref();
    worker.postMessage(job.message, job.transfer);
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = this.create();
    worker.unref();
    worker.on("message", (reply: Reply) => {
      const job = this.#current;
      if (this.#worker !== worker || !job) return;
      job.resolve(reply);
      setImmediate(() => this.#sendNext());
    });
    worker.on("error", (error) => this.#fail(worker, error));
    worker.on("exit", () => this.#fail(worker, new Error("the worker thread stopped")));
    this.#worker = worker;
    return worker;
  }

  /** The worker died: the job it had and every queued one fail; the next job starts a new worker. */
  #fail(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    const jobs = this.#current ? [this.#current, ...this.#queue] : [...this.#queue];
    this.#current = undefined;
    this.#queue.length = 0;
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
