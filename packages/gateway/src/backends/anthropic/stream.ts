import { chunkEvent, DONE_EVENT, type FinishReason, usageEvent, wantsUsage } from "../openai-chat.ts";
import type { RequestOptions } from "../request-translation.ts";
import type { SseEvent } from "../sse-events.ts";
import { StreamFailure } from "../translated-call.ts";
import { openAiUsage, type TokenUsage } from "../usage.ts";
import { finishReasonOf, usageOf } from "./response.ts";
import type { AnthropicUsage } from "./types.ts";
import { AnthropicUsageCounter } from "./usage-counter.ts";

/**
 * Anthropic's stream events → OpenAI chunks, one event at a time:
 * message_start (id, model, input usage; the role chunk is held until the first content so an early error can still
 * fail over) · content_block_start (text: nothing; tool_use: the tool call's id and name) · content_block_delta
 * (text_delta → content; input_json_delta → the tool call's arguments) · message_delta (finish_reason, output usage) ·
 * message_stop (usage chunk when asked, [DONE]) · ping, content_block_stop, thinking deltas: nothing · error: a
 * StreamFailure.
 */
export class AnthropicStreamTranslator {
  readonly #includeUsage: boolean;
  #base = { id: "", created: 0, model: "" };
  #rolePending = true;
  /** Anthropic content-block index → OpenAI tool_calls index. */
  readonly #toolIndex = new Map<number, number>();
  readonly #usage = new AnthropicUsageCounter();
  #finish: FinishReason | undefined;
  #stopped = false;

  constructor(request: RequestOptions, created: number) {
    this.#includeUsage = wantsUsage(request);
    this.#base = { id: "", created, model: request.model };
  }

  event(event: SseEvent): string {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    switch (data["type"]) {
      case "message_start": {
        const message = data["message"] as { id?: string; model?: string; usage?: AnthropicUsage } | undefined;
        this.#base = { ...this.#base, id: message?.id ?? this.#base.id, model: message?.model ?? this.#base.model };
        this.#usage.started(message?.usage);
        return "";
      }
      case "content_block_start":
        return this.#blockStart(data);
      case "content_block_delta":
        return this.#blockDelta(data);
      case "message_delta": {
        const delta = data["delta"] as { stop_reason?: string | null } | undefined;
        this.#usage.updated(data["usage"] as AnthropicUsage | undefined);
        if (delta?.stop_reason === undefined || delta.stop_reason === null) return "";
        this.#finish = finishReasonOf(delta.stop_reason);
        return this.#role() + chunkEvent(this.#base, {}, this.#finish, this.#includeUsage);
      }
      case "message_stop": {
        this.#stopped = true;
        const usage = this.#includeUsage ? usageEvent(this.#base, openAiUsage(usageOf(this.#usage.raw))) : "";
        return usage + DONE_EVENT;
      }
      case "error": {
        const error = data["error"] as { type?: string; message?: string } | undefined;
        throw new StreamFailure(`anthropic stream error: ${error?.type ?? "error"}: ${error?.message ?? ""}`.trim());
      }
      default:
        // ping, content_block_stop and event types added later carry nothing for OpenAI clients
        return "";
    }
  }

  finish(): string {
    if (!this.#stopped) throw new StreamFailure("anthropic stream ended before message_stop");
    return "";
  }

  usage(): TokenUsage | undefined {
    return this.#usage.usage();
  }

  #role(): string {
    if (!this.#rolePending) return "";
    this.#rolePending = false;
    return chunkEvent(this.#base, { role: "assistant", content: "" }, null, this.#includeUsage);
  }

  #blockStart(data: Record<string, unknown>): string {
    const block = data["content_block"] as { type?: string; id?: string; name?: string; text?: string } | undefined;
    if (block?.type === "tool_use") {
      const index = this.#toolIndex.size;
      this.#toolIndex.set(data["index"] as number, index);
      const call = { index, id: block.id, type: "function", function: { name: block.name, arguments: "" } };
      return this.#role() + chunkEvent(this.#base, { tool_calls: [call] }, null, this.#includeUsage);
    }
    if (block?.type === "text") {
      const role = this.#role();
      return block.text ? role + chunkEvent(this.#base, { content: block.text }, null, this.#includeUsage) : role;
    }
    return "";
  }

  #blockDelta(data: Record<string, unknown>): string {
    const delta = data["delta"] as { type?: string; text?: string; partial_json?: string } | undefined;
    if (delta?.type === "text_delta" && delta.text) {
      return this.#role() + chunkEvent(this.#base, { content: delta.text }, null, this.#includeUsage);
    }
    if (delta?.type === "input_json_delta" && delta.partial_json) {
      const index = this.#toolIndex.get(data["index"] as number);
      if (index === undefined) return "";
      const call = { index, function: { arguments: delta.partial_json } };
      return chunkEvent(this.#base, { tool_calls: [call] }, null, this.#includeUsage);
    }
    return "";
  }
}
