import { Worker } from "node:worker_threads";

/**
 * JSON.parse on a worker thread, for large bodies with few values (long texts, base64 images, strings full of
 * escapes): parsing them takes tens of milliseconds, while handing the result back (a structured clone of a few
 * strings) costs little. The worker is plain JavaScript so that it runs the same from TypeScript and compiled code.
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", ({ id, buffer, offset, length }) => {
  try {
    const text = Buffer.from(buffer, offset, length).toString("utf8");
    parentPort.postMessage({ id, value: JSON.parse(text) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof SyntaxError ? error.message : "unreadable JSON" });
  }
});
`;

type Reply = { id: number; value?: unknown; error?: string };

interface Job {
  id: number;
  raw: Buffer;
  resolve: (value: unknown) => void;
  reject: (error: SyntaxError) => void;
}

/**
 * One parse at a time on the worker, and the next one handed over only on the loop turn after a result arrived: taking
 * a result in (the structured clone of a 10 MB text) costs the event loop about 10 ms, and several results waiting on
 * the port would all be taken in one turn.
 */
export class JsonParseWorker {
  #worker: Worker | undefined;
  #next = 0;
  readonly #queue: Job[] = [];
  #current: Job | undefined;

  parse(raw: Buffer): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#next++, raw, resolve, reject });
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
    const { id, raw } = job;
    if (raw.buffer instanceof SharedArrayBuffer) {
      // Shared memory (see BodyBuffer): the worker reads the bytes where they are; `raw` is only read, never written.
      worker.postMessage({ id, buffer: raw.buffer, offset: raw.byteOffset, length: raw.length });
    } else {
      // A copy the worker owns: `raw` stays here, to be forwarded as is.
      const { buffer } = new Uint8Array(raw);
      worker.postMessage({ id, buffer, offset: 0, length: raw.length }, [buffer]);
    }
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on("message", ({ id, value, error }: Reply) => {
      const job = this.#current;
      if (!job || job.id !== id) return;
      if (error === undefined) job.resolve(value);
      else job.reject(new SyntaxError(error));
      setImmediate(() => this.#sendNext());
    });
    worker.on("error", (error) => this.#fail(error));
    worker.on("exit", () => this.#fail(new Error("the JSON parse worker stopped")));
    this.#worker = worker;
    return worker;
  }

  /** The worker died: the job it had and every queued one fail; the next parse starts a new worker. */
  #fail(error: Error): void {
    this.#worker = undefined;
    const jobs = this.#current ? [this.#current, ...this.#queue] : [...this.#queue];
    this.#current = undefined;
    this.#queue.length = 0;
    for (const job of jobs) job.reject(error as SyntaxError);
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }
}
