import { chunkEvent, DONE_EVENT, type FinishReason, usageEvent, wantsUsage } from "../openai-chat.ts";
import type { RequestOptions } from "../request-translation.ts";
import type { SseEvent } from "../sse-events.ts";
import { StreamFailure } from "../translated-call.ts";
import type { TokenUsage } from "../usage.ts";
import { finishReasonOf, openAiUsageOf, partsToMessage, usageOf } from "./response.ts";
import type { GeminiResponse, GeminiUsage } from "./types.ts";

/**
 * Gemini's SSE stream (each event a partial GenerateContentResponse) → OpenAI chunks, event by event: text parts →
 * content deltas, a functionCall part (Gemini sends each whole) → one tool-call delta with id, name and arguments,
 * finishReason → the finish chunk. Gemini sends no end marker: a clean end after a finishReason gets the usage chunk
 * (when asked) and [DONE]; an end before any finishReason is a broken stream.
 */
export class GeminiStreamTranslator {
  readonly #includeUsage: boolean;
  readonly #base: { id: string; created: number; model: string };
  readonly #roleSent = new Set<number>();
  /** Tool calls so far per candidate (their OpenAI index). */
  readonly #calls = new Map<number, number>();
  #usage: GeminiUsage | undefined;
  #finished = new Map<number, FinishReason>();

  constructor(request: RequestOptions, id: string, created: number) {
    this.#includeUsage = wantsUsage(request);
    this.#base = { id, created, model: request.model };
  }

  event(event: SseEvent): string {
    const data = JSON.parse(event.data) as GeminiResponse & { error?: { message?: string; status?: string } };
    if (data.error)
      throw new StreamFailure(`google stream error: ${data.error.status ?? ""} ${data.error.message ?? ""}`.trim());
    if (data.usageMetadata) this.#usage = data.usageMetadata;
    let out = "";
    for (const candidate of data.candidates ?? []) {
      const index = candidate.index ?? 0;
      const first = this.#calls.get(index) ?? 0;
      const { text, hasText, toolCalls } = partsToMessage(candidate, this.#base.id, first);
      if (!this.#roleSent.has(index) && (hasText || toolCalls.length > 0 || candidate.finishReason)) {
        this.#roleSent.add(index);
        out += chunkEvent(this.#base, { role: "assistant", content: "" }, null, this.#includeUsage, index);
      }
      if (hasText && text !== "") out += chunkEvent(this.#base, { content: text }, null, this.#includeUsage, index);
      if (toolCalls.length > 0) {
        const deltas = toolCalls.map((call, offset) => ({ index: first + offset, ...call }));
        this.#calls.set(index, first + toolCalls.length);
        out += chunkEvent(this.#base, { tool_calls: deltas }, null, this.#includeUsage, index);
      }
      if (candidate.finishReason) {
        const finish = finishReasonOf(candidate.finishReason, (this.#calls.get(index) ?? 0) > 0);
        this.#finished.set(index, finish);
        out += chunkEvent(this.#base, {}, finish, this.#includeUsage, index);
      }
    }
    if (data.promptFeedback?.blockReason && (data.candidates ?? []).length === 0) {
      this.#finished.set(0, "content_filter");
      out += chunkEvent(this.#base, { role: "assistant", content: "" }, "content_filter", this.#includeUsage);
    }
    return out;
  }

  finish(): string {
    if (this.#finished.size === 0) throw new StreamFailure("google stream ended before a finishReason");
    return (this.#includeUsage ? usageEvent(this.#base, openAiUsageOf(this.#usage)) : "") + DONE_EVENT;
  }

  usage(): TokenUsage | undefined {
    return this.#usage ? usageOf(this.#usage) : undefined;
  }
}
