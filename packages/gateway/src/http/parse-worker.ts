import { Worker } from "node:worker_threads";
import { LONG_TEXT_CHARS, LONG_TEXT_SAMPLE_CHARS } from "../request/long-text.ts";
import { bytesForWorker, SerialWorker } from "../threads/serial-worker.ts";
import { type LongTextMark, takeOutLongTexts, topLevelMemberRange } from "./long-texts.ts";

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
parentPort.on("message", ({ buffer, offset, length, slim }) => {
  try {
    const bytes = new Uint8Array(buffer, offset, length);
    const value = JSON.parse(Buffer.from(buffer, offset, length).toString("utf8"));
    const marks = slim ? takeOutLongTexts(value, ${LONG_TEXT_CHARS}, ${LONG_TEXT_SAMPLE_CHARS}) : [];
    const modelRange = marks.length > 0 ? topLevelMemberRange(bytes, "model") : undefined;
    const inputRange = marks.length > 0 ? topLevelMemberRange(bytes, "input") : undefined;
    parentPort.postMessage({ value, marks, modelRange, inputRange });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof SyntaxError ? error.message : "unreadable JSON" });
  }
});
`;

/** A parsed body; with long texts taken out, their marks and the byte ranges of the "model" and "input" values. */
export interface ParsedBody {
  value: unknown;
  marks: LongTextMark[];
  modelRange: [number, number] | undefined;
  inputRange: [number, number] | undefined;
}

type Reply = Partial<ParsedBody> & { error?: string };

/** Parses on one worker thread, one body at a time (taking in a parsed text of megabytes costs the event loop). */
export class JsonParseWorker {
  readonly #worker = new SerialWorker<Reply>(() => new Worker(WORKER_SOURCE, { eval: true }));

  /** `slim`: leave the long texts in the worker (see long-texts.ts). `raw` is only read, never written. */
  async parse(raw: Buffer, slim = false): Promise<ParsedBody> {
    const { bytes, transfer } = bytesForWorker(raw);
    const { value, marks, modelRange, inputRange, error } = await this.#worker.run({ ...bytes, slim }, transfer);
    if (error !== undefined) throw new SyntaxError(error);
    return { value, marks: marks ?? [], modelRange, inputRange };
  }

  close(): Promise<void> {
    return this.#worker.close();
  }
}
