import { type SseEvent, SseEventParser } from "../sse-events.ts";
import type { ResponseSink } from "../upstream-call.ts";
import type { TokenUsage } from "../usage.ts";
import type { AnthropicUsage } from "./types.ts";
import { AnthropicUsageCounter } from "./usage-counter.ts";

const EVENT_STREAM = /^text\/event-stream/i;
/** A whole message larger than this is passed on without reading its usage (then unknown). */
const MAX_READ_BYTES = 16 * 1024 * 1024;

/**
 * Passes an Anthropic answer on exactly as the provider wrote it (a client of Anthropic's own API gets every block:
 * thinking and its signature, citations, whatever comes next), reading its usage on the way: from message_start and
 * message_delta in a stream, from `usage` in a whole message. The usage goes to the sink (`usage`) before the end, and
 * to `onSettled` once the call is over, however it ended.
 */
export class NativeMessagesTap implements ResponseSink {
  readonly #out: ResponseSink;
  readonly #onSettled: (usage: TokenUsage | undefined) => void;
  readonly #counter = new AnthropicUsageCounter();
  #parser: SseEventParser | undefined;
  #chunks: Buffer[] | undefined;
  #length = 0;
  #settled = false;

  constructor(out: ResponseSink, onSettled: (usage: TokenUsage | undefined) => void) {
    this.#out = out;
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
      for (const event of this.#parser.push(chunk)) this.#read(event);
    } else if (this.#chunks !== undefined) {
      this.#length += chunk.length;
      if (this.#length <= MAX_READ_BYTES) this.#chunks.push(chunk);
      else this.#chunks = undefined;
    }
    this.#out.data(chunk);
  }

  end(): void {
    if (this.#parser !== undefined) for (const event of this.#parser.finish()) this.#read(event);
    else if (this.#chunks !== undefined) {
      const usage = messageUsage(Buffer.concat(this.#chunks, this.#length));
      if (usage !== undefined) this.#counter.started(usage);
    }
    const usage = this.#counter.usage();
    if (usage !== undefined) this.#out.usage?.(usage);
    this.#settle(usage);
    this.#out.end();
  }

  error(error: Error): void {
    this.#settle(this.#counter.usage());
    this.#out.error(error);
  }

  #read(event: SseEvent): void {
    // Only the two events that carry usage are parsed; the content's deltas pass untouched.
    if (event.event !== "message_start" && event.event !== "message_delta") return;
    let data: { message?: { usage?: AnthropicUsage }; usage?: AnthropicUsage };
    try {
      data = JSON.parse(event.data) as typeof data;
    } catch {
      return;
    }
    if (event.event === "message_start") this.#counter.started(data.message?.usage);
    else this.#counter.updated(data.usage);
  }

  #settle(usage: TokenUsage | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#onSettled(usage);
  }
}

/** A whole message's `usage`, or undefined when the body is not a message. */
function messageUsage(body: Buffer): AnthropicUsage | undefined {
  try {
    const message = JSON.parse(body.toString("utf8")) as { usage?: AnthropicUsage } | null;
    return message?.usage && typeof message.usage === "object" ? message.usage : undefined;
  } catch {
    return undefined;
  }
}
