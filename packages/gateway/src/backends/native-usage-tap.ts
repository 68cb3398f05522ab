import { type SseEvent, SseEventParser } from "./sse-events.ts";
import type { ResponseSink } from "./upstream-call.ts";
import type { TokenUsage } from "./usage.ts";

const EVENT_STREAM = /^text\/event-stream/i;
/** A whole answer larger than this is passed on without reading its usage (then unknown). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

/** Where an API's answers carry their usage: which stream events, which field of a whole answer. */
export interface NativeUsageReader {
  /** Each event of a stream (parse only the ones that carry usage: the others pass untouched). */
  event(event: SseEvent): void;
  /** A whole answer's body. */
  whole(body: Buffer): void;
  /** What was read so far. */
  usage(): TokenUsage | undefined;
}

/**
 * Passes an answer of a provider's own API on exactly as the provider wrote it (its client gets every field and
 * event, whatever comes next), reading its usage on the way. The usage goes to the sink (`usage`) before the end, and
 * to `onSettled` once the call is over, however it ended.
 */
export class NativeUsageTap implements ResponseSink {
  readonly #out: ResponseSink;
  readonly #reader: NativeUsageReader;
  readonly #onSettled: (usage: TokenUsage | undefined) => void;
  #parser: SseEventParser | undefined;
  #chunks: Buffer[] | undefined;
  #length = 0;
  #settled = false;

  constructor(out: ResponseSink, reader: NativeUsageReader, onSettled: (usage: TokenUsage | undefined) => void) {
    this.#out = out;
    this.#reader = reader;
    this.#onSettled = onSettled;
  }

  start(statusCode: number, contentType: string): void {
    if (statusCode === 200) {
      if (EVENT_STREAM.test(contentType)) this.#parser = new SseEventParser();
      else this.#chunks = [];
    }
    this.#out.start(statusCode, contentType);
  }

  data(chunk: Buffer): void {
    if (this.#parser !== undefined) {
      for (const event of this.#parser.push(chunk)) this.#reader.event(event);
    } else if (this.#chunks !== undefined) {
      this.#length += chunk.length;
      if (this.#length <= MAX_READ_BYTES) this.#chunks.push(chunk);
      else this.#chunks = undefined;
    }
    this.#out.data(chunk);
  }

  end(): void {
    if (this.#parser !== undefined) for (const event of this.#parser.finish()) this.#reader.event(event);
    else if (this.#chunks !== undefined) this.#reader.whole(Buffer.concat(this.#chunks, this.#length));
    const usage = this.#reader.usage();
    if (usage !== undefined) this.#out.usage?.(usage);
    this.#settle(usage);
    this.#out.end();
  }

  error(error: Error): void {
    this.#settle(this.#reader.usage());
    this.#out.error(error);
  }

  #settle(usage: TokenUsage | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#onSettled(usage);
  }
}

/** A JSON text's value, or undefined when it is not JSON. */
export function parsedOrUndefined<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
