import type { StreamFacts, StreamTranslator } from "../openai-answer.ts";
import { geminiStreamError } from "./errors.ts";
import { finishReasonOf, functionCallPart, geminiUsage, responseIdOf } from "./response.ts";

/**
 * OpenAI chunks → Gemini's stream: each piece of text a GenerateContentResponse of its own; function calls whole (as
 * Gemini streams them), in the last response with the finishReason and usageMetadata. With `alt=sse` each response is
 * an SSE event (`data: …` and a blank line, CRLF as Google writes them); without it the stream is one JSON array
 * written as it goes. A break-off ends with an error response.
 */
export class GeminiStream implements StreamTranslator {
  readonly #sse: boolean;
  #written = 0;
  readonly #calls = new Map<number, { id: string; name: string; arguments: string }>();

  constructor(sse: boolean) {
    this.#sse = sse;
  }

  text(text: string, facts: StreamFacts): string {
    return this.#response({ candidates: [candidate([{ text }])], ...ids(facts) });
  }

  toolCall(index: number, id: string, name: string): string {
    this.#calls.set(index, { id, name, arguments: "" });
    return "";
  }

  toolArguments(index: number, text: string): string {
    const call = this.#calls.get(index);
    if (call !== undefined) call.arguments += text;
    return "";
  }

  error(message: string): string {
    const error = geminiStreamError(message, this.#sse);
    return this.#sse ? error : `${this.#written++ === 0 ? "[" : ",\r\n"}${error}]`;
  }

  end(facts: StreamFacts): string {
    const parts = [...this.#calls.values()].map((call) =>
      functionCallPart({ id: call.id, function: { name: call.name, arguments: call.arguments } }),
    );
    const last = candidate(parts.length > 0 ? parts : [{ text: "" }]);
    last["finishReason"] = finishReasonOf(facts.finishReason);
    const closing = this.#response({ candidates: [last], usageMetadata: geminiUsage(facts.usage), ...ids(facts) });
    return this.#sse ? closing : `${closing}]`;
  }

  #response(response: Record<string, unknown>): string {
    const json = JSON.stringify(response);
    if (this.#sse) return `data: ${json}\r\n\r\n`;
    return `${this.#written++ === 0 ? "[" : ",\r\n"}${json}`;
  }
}

function candidate(parts: Record<string, unknown>[]): Record<string, unknown> {
  return { content: { role: "model", parts }, index: 0 };
}

function ids(facts: StreamFacts): Record<string, string> {
  return { modelVersion: facts.model, responseId: responseIdOf(facts.id) };
}
