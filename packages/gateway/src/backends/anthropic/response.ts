import type { FinishReason, ToolCall } from "../openai-chat.ts";
import { openAiUsage, type TokenUsage } from "../usage.ts";
import type { AnthropicResponse, AnthropicUsage } from "./types.ts";

/** Anthropic's stop_reason → OpenAI's finish_reason. */
export function finishReasonOf(stopReason: string | null | undefined): FinishReason {
  switch (stopReason) {
    case "max_tokens":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      // end_turn, stop_sequence, pause_turn
      return "stop";
  }
}

/** Anthropic's usage (input_tokens excludes cached tokens) → provider-neutral usage. */
export function usageOf(usage: AnthropicUsage | undefined): TokenUsage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
    cacheWriteTokens: usage?.cache_creation_input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
  };
}

/** Anthropic message → OpenAI `chat.completion`. */
export function toChatCompletion(native: AnthropicResponse, created: number): Record<string, unknown> {
  let text = "";
  let hasText = false;
  const toolCalls: ToolCall[] = [];
  for (const block of native.content ?? []) {
    if (block.type === "text") {
      text += block.text;
      hasText = true;
    } else if (block.type === "tool_use") {
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
    // thinking blocks have no place in OpenAI's message
  }
  const message: Record<string, unknown> = { role: "assistant", content: hasText ? text : null, refusal: null };
  if (toolCalls.length > 0) message["tool_calls"] = toolCalls;
  return {
    id: native.id,
    object: "chat.completion",
    created,
    model: native.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(native.stop_reason) }],
    usage: openAiUsage(usageOf(native.usage)),
  };
}
