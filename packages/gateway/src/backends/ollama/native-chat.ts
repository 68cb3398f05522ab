import type { ResponseSink } from "../upstream-call.ts";
import type { TokenUsage } from "../usage.ts";

/** The last line of an answer is read for its counts: at most this much of it is kept. */
const MAX_LAST_LINE_BYTES = 64 * 1024;
const LF = 0x0a;

/**
 * Passes an Ollama answer (/api/chat or /api/generate, NDJSON or one object) on exactly as Ollama wrote it, and reads
 * its token counts on the way: `prompt_eval_count` and `eval_count` of the last object (`done: true`). They go to the
 * sink (`usage`) before the end.
 */
export class OllamaCountsTap implements ResponseSink {
  readonly #out: ResponseSink;
  /** The bytes since the last complete line before them (bounded): the answer's last object in the end. */
  #tail: Buffer[] = [];
  #tailLength = 0;
  #ok = false;
  #lineEnded = false;

  constructor(out: ResponseSink) {
    this.#out = out;
  }

  start(statusCode: number, contentType: string): void {
    this.#ok = statusCode === 200;
    this.#out.start(statusCode, contentType);
  }

  data(chunk: Buffer): void {
    if (this.#ok) this.#keepTail(chunk);
    this.#out.data(chunk);
  }

  end(): void {
    const usage = this.#ok ? countsOf(Buffer.concat(this.#tail, this.#tailLength)) : undefined;
    if (usage !== undefined) this.#out.usage?.(usage);
    this.#out.end();
  }

  error(error: Error): void {
    this.#out.error(error);
  }

  /** Keeps the answer's last line so far (a trailing newline ends it; a chunk after one starts a new line). */
  #keepTail(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const ended = chunk[chunk.length - 1] === LF;
    const search = ended ? chunk.length - 2 : chunk.length - 1;
    const newline = search < 0 ? -1 : chunk.lastIndexOf(LF, search);
    if (newline >= 0 || this.#lineEnded) {
      this.#tail = [chunk.subarray(newline + 1)];
      this.#tailLength = chunk.length - newline - 1;
    } else {
      this.#tail.push(chunk);
      this.#tailLength += chunk.length;
    }
    this.#lineEnded = ended;
    if (this.#tailLength > MAX_LAST_LINE_BYTES) {
      this.#tail = [];
      this.#tailLength = 0;
    }
  }
}

/** The counts of Ollama's final object, or undefined when it has none. */
function countsOf(last: Buffer): TokenUsage | undefined {
  let object: { prompt_eval_count?: unknown; eval_count?: unknown };
  try {
    object = JSON.parse(last.toString("utf8")) as typeof object;
  } catch {
    return undefined;
  }
  const prompt = object?.prompt_eval_count;
  const output = object?.eval_count;
  if (typeof prompt !== "number" && typeof output !== "number") return undefined;
  return {
    inputTokens: typeof prompt === "number" ? prompt : 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: typeof output === "number" ? output : 0,
  };
}
