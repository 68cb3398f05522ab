import { type NativeUsageReader, parsedOrUndefined } from "../native-usage-tap.ts";
import type { SseEvent } from "../sse-events.ts";
import type { TokenUsage } from "../usage.ts";

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

/** A response's `usage` as provider-neutral usage (input_tokens includes the cached ones). */
function responsesUsage(value: unknown): TokenUsage | undefined {
  if (!value || typeof value !== "object") return undefined;
  const usage = value as Record<string, unknown>;
  const input = typeof usage["input_tokens"] === "number" ? usage["input_tokens"] : 0;
  const output = typeof usage["output_tokens"] === "number" ? usage["output_tokens"] : 0;
  const details = usage["input_tokens_details"] as Record<string, unknown> | null | undefined;
  const cached = typeof details?.["cached_tokens"] === "number" ? details["cached_tokens"] : 0;
  return {
    inputTokens: Math.max(0, input - cached),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    outputTokens: output,
  };
}
