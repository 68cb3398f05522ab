// The response object of the Responses API, built from the pipeline's answer.
import { randomBytes } from "node:crypto";
import type { ChatMessage, ToolCall } from "../../request/chat.ts";
import type { OpenAiCompletion, OpenAiUsage } from "../openai-answer.ts";
import type { ResponseEcho } from "./request.ts";

export const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString("hex")}`;

export type OutputItem =
  | {
      type: "message";
      id: string;
      status: "in_progress" | "completed";
      role: "assistant";
      content: Array<{ type: "output_text"; text: string; annotations: unknown[] }>;
    }
  | {
      type: "function_call";
      id: string;
      call_id: string;
      name: string;
      arguments: string;
      status: "in_progress" | "completed";
    };

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

/** One response as it is being answered: its id and echo are fixed from the start, its output grows. */
export class ResponseDraft {
  readonly id = newId("resp");
  readonly createdAt = Math.floor(Date.now() / 1000);

  constructor(readonly echo: ResponseEcho) {}

  /** The response object with `status`, `output` and `usage` as they are now. */
  object(
    status: ResponseStatus,
    output: OutputItem[],
    usage: OpenAiUsage | undefined,
    model: string,
    error: { code: string; message: string } | null = null,
  ): Record<string, unknown> {
    const { echo } = this;
    return {
      id: this.id,
      object: "response",
      created_at: this.createdAt,
      status,
      error,
      incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
      instructions: echo.instructions,
      max_output_tokens: echo.max_output_tokens,
      model,
      output,
      parallel_tool_calls: echo.parallel_tool_calls,
      previous_response_id: echo.previous_response_id,
      reasoning: { effort: null, summary: null },
      store: echo.store,
      temperature: echo.temperature,
      text: echo.text,
      tool_choice: echo.tool_choice,
      tools: echo.tools,
      top_p: echo.top_p,
      truncation: "disabled",
      usage: usage === undefined ? null : responsesUsage(usage),
      user: null,
      metadata: echo.metadata,
    };
  }
}

function responsesUsage(usage: OpenAiUsage): Record<string, unknown> {
  const input = usage.prompt_tokens ?? 0;
  const output = usage.completion_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens ?? input + output,
  };
}

export const statusOf = (finishReason: string | null | undefined): ResponseStatus =>
  finishReason === "length" ? "incomplete" : "completed";

/** A completion's output items: the message (when it has text), then its function calls. */
export function outputOf(completion: OpenAiCompletion): OutputItem[] {
  const message = completion.choices?.[0]?.message;
  const items: OutputItem[] = [];
  const text = message?.content;
  if (typeof text === "string" && text !== "") {
    items.push({
      type: "message",
      id: newId("msg"),
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }],
    });
  }
  for (const call of message?.tool_calls ?? []) {
    items.push({
      type: "function_call",
      id: newId("fc"),
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      status: "completed",
    });
  }
  return items;
}

/** Output items → the assistant message that continues the conversation. */
export function assistantMessageOf(output: readonly OutputItem[]): ChatMessage {
  let text = "";
  const calls: ToolCall[] = [];
  for (const item of output) {
    if (item.type === "message") for (const part of item.content) text += part.text;
    else calls.push({ id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } });
  }
  const message: ChatMessage = { role: "assistant", content: calls.length > 0 && text === "" ? null : text };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}
