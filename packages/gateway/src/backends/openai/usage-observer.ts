import { type SseEvent, SseEventParser } from "../sse-events.ts";
import type { ResponseSink } from "../upstream-call.ts";
import type { TokenUsage } from "../usage.ts";

const EVENT_STREAM = /^text\/event-stream/i;

/** The names of an OpenAI API's usage fields: chat completions' by default, or the Responses API's. */
export interface UsageFields {
  input: string;
  output: string;
  inputDetails: string;
}

const CHAT_USAGE: UsageFields = {
  input: "prompt_tokens",
  output: "completion_tokens",
  inputDetails: "prompt_tokens_details",
};

/** OpenAI's `usage` object as provider-neutral usage (the input count includes the cached tokens). */
export function usageFromOpenAi(value: unknown, fields: UsageFields = CHAT_USAGE): TokenUsage | undefined {
  if (!value || typeof value !== "object") return undefined;
  const usage = value as Record<string, unknown>;
  const input = usage[fields.input];
  const output = usage[fields.output];
  const details = usage[fields.inputDetails] as Record<string, unknown> | null | undefined;
  const cached = typeof details?.["cached_tokens"] === "number" ? details["cached_tokens"] : 0;
  return {
    inputTokens: Math.max(0, (typeof input === "number" ? input : 0) - cached),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    outputTokens: typeof output === "number" ? output : 0,
  };
}

/**
 * Forwards an OpenAI answer unchanged while reading the tokens it used: `usage` from the body or from a stream's
 * usage chunk; when a stream has none (the client did not ask for `include_usage`), the streamed text is counted.
 * Reports once per successful call, also when a stream is cut short (the provider billed what it generated).
 */
export interface UsageObserverOptions {
  out: ResponseSink;
  stream: boolean;
  /** The request's prompt tokens, counted only when the answer reports no usage. */
  countPrompt: () => Promise<number>;
  countText: (text: string) => Promise<number>;
  onUsage: (usage: TokenUsage, reported: boolean) => void;
}

export class UsageObserver implements ResponseSink {
  readonly #options: UsageObserverOptions;
  #status = 0;
  #parser: SseEventParser | undefined;
  #chunks: Buffer[] = [];
  #usage: TokenUsage | undefined;
  #streamedText = "";
  #reported = false;

  constructor(options: UsageObserverOptions) {
    this.#options = options;
  }

  start(statusCode: number, contentType: string): void {
    this.#status = statusCode;
    if (statusCode === 200 && this.#options.stream && EVENT_STREAM.test(contentType)) {
      this.#parser = new SseEventParser();
    }
    this.#options.out.start(statusCode, contentType);
  }

  data(chunk: Buffer): void {
    if (this.#status === 200) {
      if (this.#parser) for (const event of this.#parser.push(chunk)) this.#read(event);
      else this.#chunks.push(chunk);
    }
    this.#options.out.data(chunk);
  }

  end(): void {
    if (this.#status === 200 && !this.#parser) {
      try {
        this.#usage = usageFromOpenAi(
          (JSON.parse(Buffer.concat(this.#chunks).toString("utf8")) as Record<string, unknown>)["usage"],
        );
      } catch {
        // not JSON: nothing to read, the text estimate applies
      }
      this.#chunks = [];
    }
    this.#report();
    this.#options.out.end();
  }

  error(error: Error): void {
    this.#report();
    this.#options.out.error(error);
  }

  #read(event: SseEvent): void {
    if (event.data === "[DONE]" || !event.data.startsWith("{")) return;
    try {
      const chunk = JSON.parse(event.data) as Record<string, unknown>;
      const usage = usageFromOpenAi(chunk["usage"]);
      if (usage) this.#usage = usage;
      const choices = chunk["choices"];
      if (!Array.isArray(choices)) return;
      for (const choice of choices) {
        const delta = (choice as { delta?: Record<string, unknown> } | null)?.delta;
        if (typeof delta?.["content"] === "string") this.#streamedText += delta["content"];
        if (Array.isArray(delta?.["tool_calls"])) this.#streamedText += JSON.stringify(delta["tool_calls"]);
      }
    } catch {
      // an event that is not JSON is relayed; it just does not count
    }
  }

  #report(): void {
    if (this.#reported || this.#status !== 200) return;
    this.#reported = true;
    if (this.#usage) {
      this.#options.onUsage(this.#usage, true);
      return;
    }
    const output = this.#streamedText;
    // Counted on the tokenizer thread: reported a moment after the call ended.
    void Promise.all([this.#options.countPrompt(), output === "" ? 0 : this.#options.countText(output)]).then(
      ([inputTokens, outputTokens]) =>
        this.#options.onUsage({ inputTokens, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens }, false),
    );
  }
}
