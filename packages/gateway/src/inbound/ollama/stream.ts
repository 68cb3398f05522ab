import type { OpenAiToolCall, StreamFacts, StreamTranslator } from "../openai-answer.ts";
import { contentFields, doneFields, type OllamaEndpoint, ollamaToolCalls } from "./response.ts";

/**
 * OpenAI chunks → Ollama's NDJSON stream: one object per text piece (`done: false`), tool calls whole in one object
 * (Ollama gives arguments as objects, so they are gathered until the stream ends), then the final `done: true` object
 * with the counts. A break-off is Ollama's `{"error": ...}` line.
 */
export class OllamaStream implements StreamTranslator {
  readonly #calls: OpenAiToolCall[] = [];
  /** `{"model":...,"created_at":` serialised once per stream. */
  readonly #prefix: string;

  constructor(
    private readonly endpoint: OllamaEndpoint,
    model: string,
    private readonly startedAt: number,
  ) {
    this.#prefix = `{"model":${JSON.stringify(model)},"created_at":`;
  }

  text(text: string): string {
    const fields =
      this.endpoint === "chat"
        ? `"message":{"role":"assistant","content":${JSON.stringify(text)}}`
        : `"response":${JSON.stringify(text)}`;
    return `${this.#prefix}"${new Date().toISOString()}",${fields},"done":false}\n`;
  }

  toolCall(_index: number, id: string, name: string): string {
    this.#calls.push({ id, type: "function", function: { name, arguments: "" } });
    return "";
  }

  toolArguments(index: number, text: string): string {
    const call = this.#calls[index];
    if (call) call.function.arguments += text;
    return "";
  }

  error(message: string): string {
    return `${JSON.stringify({ error: message })}\n`;
  }

  end(facts: StreamFacts): string {
    let out = "";
    if (this.#calls.length > 0)
      out += this.#line(contentFields(this.endpoint, "", ollamaToolCalls(this.#calls)), false);
    const final = {
      ...contentFields(this.endpoint, ""),
      ...doneFields(facts.finishReason, facts.usage, this.startedAt),
    };
    return out + this.#line(final, true);
  }

  #line(fields: Record<string, unknown>, done: boolean): string {
    const body = JSON.stringify(done ? fields : { ...fields, done: false });
    return `${this.#prefix}"${new Date().toISOString()}",${body.slice(1)}\n`;
  }
}
