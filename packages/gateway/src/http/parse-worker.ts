import { Worker } from "node:worker_threads";

/**
 * JSON.parse on a worker thread, for large bodies with few values (long texts, base64 images, strings full of
 * escapes): parsing them takes tens of milliseconds, while handing the result back (a structured clone of a few
 * strings) costs little. The worker is plain JavaScript so that it runs the same from TypeScript and compiled code.
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", ({ id, bytes }) => {
  try {
    parentPort.postMessage({ id, value: JSON.parse(Buffer.from(bytes).toString("utf8")) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof SyntaxError ? error.message : "unreadable JSON" });
  }
});
`;

type Reply = { id: number; value?: unknown; error?: string };

export class JsonParseWorker {
  #worker: Worker | undefined;
  #next = 0;
  readonly #waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: SyntaxError) => void }>();

  parse(raw: Buffer): Promise<unknown> {
    const worker = this.#start();
    const id = this.#next++;
    // A copy the worker owns: `raw` stays here, to be forwarded as is.
    const bytes = new Uint8Array(raw);
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      worker.postMessage({ id, bytes }, [bytes.buffer]);
      worker.ref();
    });
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on("message", ({ id, value, error }: Reply) => {
      const waiter = this.#waiting.get(id);
      this.#waiting.delete(id);
      if (this.#waiting.size === 0) worker.unref();
      if (error === undefined) waiter?.resolve(value);
      else waiter?.reject(new SyntaxError(error));
    });
    worker.on("error", (error) => this.#fail(error));
    worker.on("exit", () => this.#fail(new Error("the JSON parse worker stopped")));
    this.#worker = worker;
    return worker;
  }

  #fail(error: Error): void {
    this.#worker = undefined;
    for (const waiter of this.#waiting.values()) waiter.reject(error as SyntaxError);
    this.#waiting.clear();
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await worker.terminate();
  }
}
