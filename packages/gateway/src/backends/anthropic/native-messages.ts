import type { NativeUsageReader } from "../native-usage-tap.ts";
import { parsedOrUndefined } from "../native-usage-tap.ts";
import type { SseEvent } from "../sse-events.ts";
import type { TokenUsage } from "../usage.ts";
import type { AnthropicUsage } from "./types.ts";
import { AnthropicUsageCounter } from "./usage-counter.ts";

/**
 * Where Anthropic's Messages carry their usage (an anthropic backend's answers to the gateway's /v1/messages, passed
 * on as written: thinking and its signature, citations, whatever comes next): message_start and message_delta in a
 * stream, `usage` in a whole message.
 */
export class AnthropicUsageReader implements NativeUsageReader {
  readonly #counter = new AnthropicUsageCounter();

  event(event: SseEvent): void {
    if (event.event !== "message_start" && event.event !== "message_delta") return;
    const data = parsedOrUndefined<{ message?: { usage?: AnthropicUsage }; usage?: AnthropicUsage }>(event.data);
    if (data === undefined) return;
    if (event.event === "message_start") this.#counter.started(data.message?.usage);
    else this.#counter.updated(data.usage);
  }

  whole(body: Buffer): void {
    const message = parsedOrUndefined<{ usage?: AnthropicUsage } | null>(body.toString("utf8"));
    if (message?.usage && typeof message.usage === "object") this.#counter.started(message.usage);
  }

  usage(): TokenUsage | undefined {
    return this.#counter.usage();
  }
}
