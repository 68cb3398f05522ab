import { type NativeUsageReader, parsedOrUndefined } from "../native-usage-tap.ts";
import type { SseEvent } from "../sse-events.ts";
import type { TokenUsage } from "../usage.ts";
import { type UsageFields, usageFromOpenAi } from "./usage-observer.ts";

/** The events that end a Responses stream, each carrying the whole response with its usage. */
const FINAL_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed"]);

/**
 * Where OpenAI's Responses carry their usage (an openai backend's answers to the gateway's /v1/responses, passed on
 * as written: reasoning items and their encrypted content, hosted tools' calls): the response of a stream's final
 * event, or a whole response's `usage`.
 */
export class ResponsesUsageReader implements NativeUsageReader {
  #usage: TokenUsage | undefined;

  event(event: SseEvent): void {
    if (!FINAL_EVENTS.has(event.event)) return;
    const data = parsedOrUndefined<{ response?: { usage?: unknown } } | null>(event.data);
    this.#usage = responsesUsage(data?.response?.usage) ?? this.#usage;
  }

  whole(body: Buffer): void {
    this.#usage = responsesUsage(parsedOrUndefined<{ usage?: unknown } | null>(body.toString("utf8"))?.usage);
  }

  usage(): TokenUsage | undefined {
    return this.#usage;
  }
}

const RESPONSES_USAGE: UsageFields = {
  input: "input_tokens",
  output: "output_tokens",
  inputDetails: "input_tokens_details",
};

const responsesUsage = (value: unknown) => usageFromOpenAi(value, RESPONSES_USAGE);
