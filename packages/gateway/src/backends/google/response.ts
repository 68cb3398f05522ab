import type { FinishReason, ToolCall } from "../openai-chat.ts";
import { openAiUsage, type TokenUsage } from "../usage.ts";
import type { GeminiCandidate, GeminiResponse, GeminiUsage } from "./types.ts";

const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]);

/** Gemini's finishReason → OpenAI's finish_reason (a STOP after function calls is OpenAI's tool_calls). */
export function finishReasonOf(reason: string | undefined, calledTools: boolean): FinishReason {
  if (reason === "MAX_TOKENS") return "length";
  if (reason !== undefined && FILTERED.has(reason)) return "content_filter";
  return calledTools ? "tool_calls" : "stop";
}

/** Gemini's usageMetadata (promptTokenCount includes the cached ones; thoughts are billed as output). */
export function usageOf(usage: GeminiUsage | undefined): TokenUsage {
  const prompt = usage?.promptTokenCount ?? 0;
  const cached = usage?.cachedContentTokenCount ?? 0;
  return {
    inputTokens: Math.max(0, prompt - cached),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    outputTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
  };
}

/** OpenAI's usage from Gemini's, with reasoning tokens where Gemini reports thoughts. */
export function openAiUsageOf(usage: GeminiUsage | undefined): Record<string, unknown> {
  const mapped = openAiUsage(usageOf(usage));
  if (usage?.thoughtsTokenCount) mapped["completion_tokens_details"] = { reasoning_tokens: usage.thoughtsTokenCount };
  return mapped;
}

/** A call id for a function call Gemini gave none: stable within one answer. */
function callId(responseId: string, candidate: number, index: number): string {
  return `call_${responseId}_${candidate}_${index}`;
}

/** The text and tool calls of a candidate's parts (thought parts are the model's reasoning, not its answer). */
export function partsToMessage(candidate: GeminiCandidate, responseId: string, firstCall = 0) {
  let text = "";
  let hasText = false;
  const toolCalls: ToolCall[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if ("text" in part && typeof part.text === "string" && part.thought !== true) {
      text += part.text;
      hasText = true;
    } else if ("functionCall" in part) {
      toolCalls.push({
        id: part.functionCall.id ?? callId(responseId, candidate.index ?? 0, firstCall + toolCalls.length),
        type: "function",
        function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) },
      });
    }
  }
  return { text, hasText, toolCalls };
}

/** Gemini generateContent answer → OpenAI `chat.completion`. */
export function toChatCompletion(native: GeminiResponse, id: string, model: string, created: number) {
  const candidates = native.candidates ?? [];
  const choices = candidates.map((candidate, position) => {
    const { text, hasText, toolCalls } = partsToMessage(candidate, id);
    const message: Record<string, unknown> = { role: "assistant", content: hasText ? text : null, refusal: null };
    if (toolCalls.length > 0) message["tool_calls"] = toolCalls;
    return {
      index: candidate.index ?? position,
      message,
      logprobs: null,
      finish_reason: finishReasonOf(candidate.finishReason, toolCalls.length > 0),
    };
  });
  if (choices.length === 0) {
    // A prompt Gemini blocked has no candidates, only promptFeedback.blockReason.
    const message = { role: "assistant", content: null, refusal: null };
    choices.push({ index: 0, message, logprobs: null, finish_reason: "content_filter" });
  }
  return {
    id,
    object: "chat.completion",
    created,
    model: native.modelVersion ?? model,
    choices,
    usage: openAiUsageOf(native.usageMetadata),
  };
}
