import { Worker } from "node:worker_threads";
import {
  LONG_TEXT_CHARS,
  LONG_TEXT_SAMPLE_CHARS,
  type LongTextMark,
  takeOutLongTexts,
  topLevelMemberRange,
} from "./long-texts.ts";

/**
 * JSON.parse on a worker thread, for large bodies with few values (long texts, base64 images, strings full of
 * escapes): parsing them takes tens of milliseconds. With `slim`, the long texts stay here (see long-texts.ts): the
 * main thread gets the body without them, their marks, and where the top-level "model" value is in the bytes. The
 * worker is plain JavaScript made from those functions' own source, so that it runs the same from TypeScript (tsx,
 * whose output calls a `__name` helper: given as a no-op) and from compiled code.
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const __name = (target) => target;
const takeOutLongTexts = ${takeOutLongTexts.toString()};
const topLevelMemberRange = ${topLevelMemberRange.toString()};
parentPort.on("message", ({ id, buffer, offset, length, slim }) => {
  try {
    const bytes = new Uint8Array(buffer, offset, length);
    const value = JSON.parse(Buffer.from(buffer, offset, length).toString("utf8"));
    const marks = slim ? takeOutLongTexts(value, ${LONG_TEXT_CHARS}, ${LONG_TEXT_SAMPLE_CHARS}) : [];
    const modelRange = marks.length > 0 ? topLevelMemberRange(bytes, "model") : undefined;
    parentPort.postMessage({ id, value, marks, modelRange });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof SyntaxError ? error.message : "unreadable JSON" });
  }
});
`;

/** A parsed body; with long texts taken out, their marks and the byte range of the "model" value. */
export interface ParsedBody {
  value: unknown;
  marks: LongTextMark[];
  modelRange: [number, number] | undefined;
}

type Reply = { id: number; value?: unknown; marks?: LongTextMark[]; modelRange?: [number, number]; error?: string };

interface Job {
  id: number;
  raw: Buffer;
  slim: boolean;
  resolve: (parsed: ParsedBody) => void;
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

  /** `slim`: leave the long texts in the worker (see long-texts.ts). */
  parse(raw: Buffer, slim = false): Promise<ParsedBody> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#next++, raw, slim, resolve, reject });
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
    const { id, raw, slim } = job;
    if (raw.buffer instanceof SharedArrayBuffer) {
      // Shared memory (see BodyBuffer): the worker reads the bytes where they are; `raw` is only read, never written.
      worker.postMessage({ id, buffer: raw.buffer, offset: raw.byteOffset, length: raw.length, slim });
    } else {
      // A copy the worker owns: `raw` stays here, to be forwarded as is.
      const { buffer } = new Uint8Array(raw);
      worker.postMessage({ id, buffer, offset: 0, length: raw.length, slim }, [buffer]);
    }
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on("message", ({ id, value, marks, modelRange, error }: Reply) => {
      const job = this.#current;
      if (!job || job.id !== id) return;
      if (error === undefined) job.resolve({ value, marks: marks ?? [], modelRange });
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
