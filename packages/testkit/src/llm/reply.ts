// Turns the configured reply into what a server sends: text or tool calls, a finish reason and a token count.
import { countTokens, type NormalizedToolCall, normalizeToolCalls } from "./content.ts";
import type { ChatRequest, Reply } from "./types.ts";

export interface ChatAnswer {
  /** The assistant's text ("" when it calls tools). */
  text: string;
  /** Present when the answer is tool calls (only when the request offered tools). */
  toolCalls?: NormalizedToolCall[];
  finishReason: "stop" | "tool_calls" | "length";
  completionTokens: number;
}

function maxTokensOf(request: ChatRequest): number | undefined {
  const value = request.max_tokens ?? request.max_completion_tokens;
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

export function buildAnswer(request: ChatRequest, reply: (request: ChatRequest) => Reply, seed: number): ChatAnswer {
  const offered = Array.isArray(request.tools) && request.tools.length > 0;
  const result = reply(request);
  if (typeof result !== "string") {
    if (offered && result.toolCalls.length > 0) {
      const toolCalls = normalizeToolCalls(result.toolCalls, seed);
      const tokens = toolCalls.reduce((sum, call) => sum + countTokens(call.name + call.arguments), 0);
      return { text: "", toolCalls, finishReason: "tool_calls", completionTokens: tokens };
    }
    // A server cannot call tools it was not offered: it answers in text instead.
    const text = result.toolCalls.map((call) => call.name).join(", ");
    return { text, finishReason: "stop", completionTokens: countTokens(text) };
  }
  const limit = maxTokensOf(request);
  if (limit !== undefined && countTokens(result) > limit) {
    const text = result.slice(0, limit * 4);
    return { text, finishReason: "length", completionTokens: limit };
  }
  return { text: result, finishReason: "stop", completionTokens: countTokens(result) };
}
