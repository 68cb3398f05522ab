// The pipeline's answer (an OpenAI chat completion) → Ollama's /api/chat and /api/generate answers.
import type { OpenAiCompletion, OpenAiToolCall, OpenAiUsage } from "../openai-answer.ts";

export type OllamaEndpoint = "chat" | "generate";

/** Tool arguments as the object Ollama gives (text that is no JSON stays text). */
function argumentsOf(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function ollamaToolCalls(calls: readonly OpenAiToolCall[]): Record<string, unknown>[] {
  return calls.map((call, index) => ({
    id: call.id,
    function: { index, name: call.function.name, arguments: argumentsOf(call.function.arguments) },
  }));
}

/** The fields a final (done) object carries: the reason and the counts (durations in nanoseconds). */
export function doneFields(
  finishReason: string | null | undefined,
  usage: OpenAiUsage | null | undefined,
  startedAt: number,
): Record<string, unknown> {
  return {
    done: true,
    done_reason: finishReason === "length" ? "length" : "stop",
    total_duration: Math.round((performance.now() - startedAt) * 1e6),
    load_duration: 0,
    prompt_eval_count: usage?.prompt_tokens ?? 0,
    prompt_eval_duration: 0,
    eval_count: usage?.completion_tokens ?? 0,
    eval_duration: 0,
  };
}

/** The content fields of one object: a message (chat) or a response (generate). */
export function contentFields(
  endpoint: OllamaEndpoint,
  text: string,
  toolCalls?: Record<string, unknown>[],
): Record<string, unknown> {
  if (endpoint === "generate") return { response: text };
  const message: Record<string, unknown> = { role: "assistant", content: text };
  if (toolCalls && toolCalls.length > 0) message["tool_calls"] = toolCalls;
  return { message };
}

export function toOllamaAnswer(
  endpoint: OllamaEndpoint,
  completion: OpenAiCompletion,
  model: string,
  startedAt: number,
): Record<string, unknown> {
  const choice = completion.choices?.[0];
  const calls = choice?.message?.tool_calls;
  return {
    model,
    created_at: new Date().toISOString(),
    ...contentFields(endpoint, choice?.message?.content ?? "", calls ? ollamaToolCalls(calls) : undefined),
    ...doneFields(choice?.finish_reason, completion.usage, startedAt),
  };
}
