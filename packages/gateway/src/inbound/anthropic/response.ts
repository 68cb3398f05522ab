// The pipeline's answer (an OpenAI chat completion) → an Anthropic message.
import { argumentsObject, type OpenAiCompletion, type OpenAiUsage } from "../openai-answer.ts";

/** OpenAI's finish_reason → Anthropic's stop_reason. */
export function stopReasonOf(finishReason: string | null | undefined): string {
  if (finishReason === "length") return "max_tokens";
  if (finishReason === "tool_calls" || finishReason === "function_call") return "tool_use";
  if (finishReason === "content_filter") return "refusal";
  return "end_turn";
}

/** Anthropic's message ids start with msg_. */
export function messageIdOf(id: string | undefined): string {
  if (id === undefined || id === "") return `msg_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  return id.startsWith("msg_") ? id : `msg_${id.replace(/^chatcmpl-/, "")}`;
}

/** Anthropic's usage: input_tokens excludes what was read from the cache. */
export function anthropicUsage(usage: OpenAiUsage | undefined | null): Record<string, number> {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

export function toAnthropicMessage(completion: OpenAiCompletion, requestedModel: string): Record<string, unknown> {
  const choice = completion.choices?.[0];
  const content: Record<string, unknown>[] = [];
  const text = choice?.message?.content;
  if (typeof text === "string" && text !== "") content.push({ type: "text", text });
  for (const call of choice?.message?.tool_calls ?? []) {
    content.push({
      type: "tool_use",
      id: call.id,
      name: call.function.name,
      input: argumentsObject(call.function.arguments),
    });
  }
  return {
    id: messageIdOf(completion.id),
    type: "message",
    role: "assistant",
    model: completion.model ?? requestedModel,
    content,
    stop_reason: stopReasonOf(choice?.finish_reason),
    stop_sequence: null,
    usage: anthropicUsage(completion.usage),
  };
}
