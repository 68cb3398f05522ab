// The pipeline's answer as inbound adapters read it: an OpenAI chat completion, or its stream of chunk events.
import { SseEventParser } from "../backends/sse-events.ts";

export interface OpenAiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

export interface OpenAiToolCall {
  id: string;
  type?: "function";
  function: { name: string; arguments: string };
}

/** A `chat.completion` body, the parts adapters read. */
export interface OpenAiCompletion {
  id?: string;
  model?: string;
  created?: number;
  choices?: Array<{
    message?: { content?: string | null; tool_calls?: OpenAiToolCall[] | null; refusal?: string | null };
    finish_reason?: string | null;
  }>;
  usage?: OpenAiUsage | null;
}

/** What a stream said about itself besides its content: known in full only when it ends. */
export interface StreamFacts {
  id: string;
  model: string;
  /** OpenAI's finish_reason (stop, length, tool_calls, content_filter), null until the backend gave one. */
  finishReason: string | null;
  usage: OpenAiUsage | undefined;
}

/**
 * One inbound API's translation of a streamed answer, piece by piece; each method returns the text to send its client
 * ("" for nothing). Tool calls arrive one after another: a call's start, then its arguments in pieces.
 */
export interface StreamTranslator {
  text(text: string, facts: StreamFacts): string;
  toolCall(index: number, id: string, name: string, facts: StreamFacts): string;
  toolArguments(index: number, text: string, facts: StreamFacts): string;
  /** The stream broke off (the backend failed, or the gateway is shutting down): its last words. */
  error(message: string, facts: StreamFacts): string;
  /** The stream ended well: the closing events (the finish reason and usage are known by now). */
  end(facts: StreamFacts): string;
}

interface ChunkDelta {
  content?: string | null;
  tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }> | null;
}

interface Chunk {
  id?: string;
  model?: string;
  choices?: Array<{ delta?: ChunkDelta; finish_reason?: string | null }>;
  usage?: OpenAiUsage | null;
  error?: { message?: string };
}

/** Reads OpenAI's chunk events as they are written and hands their content to a StreamTranslator. */
export class ChunkReader {
  readonly facts: StreamFacts = { id: "", model: "", finishReason: null, usage: undefined };
  readonly #parser = new SseEventParser();
  readonly #translator: StreamTranslator;
  readonly #started = new Set<number>();
  #over = false;

  constructor(translator: StreamTranslator, model: string) {
    this.#translator = translator;
    this.facts.model = model;
  }

  /** Complete events (or pieces of them) → the inbound API's text for them. */
  push(chunk: string | Buffer): string {
    if (this.#over) return "";
    let out = "";
    for (const event of this.#parser.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk)) {
      out += this.#event(event.data);
      if (this.#over) break;
    }
    return out;
  }

  /** The stream ended: its closing events, unless they went out already. */
  finish(): string {
    let out = "";
    for (const event of this.#parser.finish()) out += this.#event(event.data);
    if (this.#over) return out;
    this.#over = true;
    return out + this.#translator.end(this.facts);
  }

  /** Feeds a whole completion as if it had been streamed (a backend that answered JSON to a stream request). */
  replay(completion: OpenAiCompletion): string {
    const choice = completion.choices?.[0];
    const message = choice?.message;
    const chunk: Chunk = {
      id: completion.id,
      model: completion.model,
      choices: [
        {
          delta: {
            content: message?.content ?? null,
            tool_calls: message?.tool_calls?.map((call, index) => ({ index, ...call })) ?? null,
          },
          finish_reason: choice?.finish_reason ?? null,
        },
      ],
      usage: completion.usage,
    };
    return this.#chunk(chunk) + this.finish();
  }

  #event(data: string): string {
    if (this.#over) return "";
    if (data === "[DONE]") {
      this.#over = true;
      return this.#translator.end(this.facts);
    }
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      return "";
    }
    if (chunk.error) {
      this.#over = true;
      return this.#translator.error(chunk.error.message ?? "The backend stream failed", this.facts);
    }
    return this.#chunk(chunk);
  }

  #chunk(chunk: Chunk): string {
    const facts = this.facts;
    if (facts.id === "" && typeof chunk.id === "string") facts.id = chunk.id;
    if (typeof chunk.model === "string" && chunk.model !== "") facts.model = chunk.model;
    if (chunk.usage) facts.usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return "";
    let out = "";
    const delta = choice.delta;
    if (typeof delta?.content === "string" && delta.content !== "") out += this.#translator.text(delta.content, facts);
    for (const call of delta?.tool_calls ?? []) {
      const index = call.index ?? 0;
      if (!this.#started.has(index)) {
        this.#started.add(index);
        out += this.#translator.toolCall(index, call.id ?? `call_${index}`, call.function?.name ?? "", facts);
      }
      const args = call.function?.arguments;
      if (typeof args === "string" && args !== "") out += this.#translator.toolArguments(index, args, facts);
    }
    if (choice.finish_reason) facts.finishReason = choice.finish_reason;
    return out;
  }
}

/** A backend's error body (OpenAI's envelope, usually) → its message, type and code. */
export function errorOfBody(body: Buffer): { message: string; type: string | undefined; code: string | undefined } {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as {
      error?: { message?: unknown; type?: unknown; code?: unknown };
    };
    const error = parsed.error;
    if (error && typeof error === "object") {
      return {
        message: typeof error.message === "string" ? error.message : "The backend refused the request",
        type: typeof error.type === "string" ? error.type : undefined,
        code: typeof error.code === "string" ? error.code : undefined,
      };
    }
    if (typeof parsed.error === "string") return { message: parsed.error, type: undefined, code: undefined };
  } catch {
    // not JSON: the text itself, bounded
  }
  return {
    message: body.toString("utf8", 0, 500) || "The backend refused the request",
    type: undefined,
    code: undefined,
  };
}

/**
 * Tool arguments as the object other APIs carry (Anthropic's tool_use.input, Gemini's functionCall.args): text that is
 * no JSON object is kept under "input".
 */
export function argumentsObject(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // below
  }
  return { input: text };
}
