// The pipeline's answer (an OpenAI chat completion) → a Gemini GenerateContentResponse.
import { argumentsObject, type OpenAiCompletion, type OpenAiToolCall, type OpenAiUsage } from "../openai-answer.ts";

/** OpenAI's finish_reason → Gemini's finishReason (tool calls end with STOP in Gemini). */
export function finishReasonOf(finishReason: string | null | undefined): string {
  if (finishReason === "length") return "MAX_TOKENS";
  if (finishReason === "content_filter") return "SAFETY";
  return "STOP";
}

/** Gemini's usageMetadata: promptTokenCount includes the cached tokens, as OpenAI's prompt_tokens does. */
export function geminiUsage(usage: OpenAiUsage | undefined | null): Record<string, number> {
  const prompt = usage?.prompt_tokens ?? 0;
  const output = usage?.completion_tokens ?? 0;
  const metadata: Record<string, number> = {
    promptTokenCount: prompt,
    candidatesTokenCount: output,
    totalTokenCount: prompt + output,
  };
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  if (cached) metadata["cachedContentTokenCount"] = cached;
  const thoughts = usage?.completion_tokens_details?.reasoning_tokens;
  if (thoughts) metadata["thoughtsTokenCount"] = thoughts;
  return metadata;
}

/** A tool call as Gemini's functionCall part. */
export function functionCallPart(call: Pick<OpenAiToolCall, "id" | "function">): Record<string, unknown> {
  return { functionCall: { id: call.id, name: call.function.name, args: argumentsObject(call.function.arguments) } };
}

/** Gemini's response ids are opaque: the completion's own id, without OpenAI's prefix. */
export function responseIdOf(id: string | undefined): string {
  return id === undefined || id === "" ? Date.now().toString(36) : id.replace(/^chatcmpl-/, "");
}

export function toGeminiResponse(completion: OpenAiCompletion, requestedModel: string): Record<string, unknown> {
  const choice = completion.choices?.[0];
  const parts: Record<string, unknown>[] = [];
  const text = choice?.message?.content;
  if (typeof text === "string" && text !== "") parts.push({ text });
  for (const call of choice?.message?.tool_calls ?? []) parts.push(functionCallPart(call));
  if (parts.length === 0) parts.push({ text: "" });
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: finishReasonOf(choice?.finish_reason), index: 0 }],
    usageMetadata: geminiUsage(completion.usage),
    modelVersion: completion.model ?? requestedModel,
    responseId: responseIdOf(completion.id),
  };
}
