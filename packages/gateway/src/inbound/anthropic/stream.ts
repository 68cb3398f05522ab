import type { StreamFacts, StreamTranslator } from "../openai-answer.ts";
import { anthropicErrorEvent } from "./errors.ts";
import { anthropicUsage, messageIdOf, stopReasonOf } from "./response.ts";

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const PING = 'event: ping\ndata: {"type":"ping"}\n\n';

/**
 * OpenAI chunks → Anthropic's stream: message_start, then per block content_block_start, content_block_delta
 * (text_delta, input_json_delta) and content_block_stop (a ping after the first block opens), then message_delta
 * (stop_reason and usage) and message_stop. A break-off is Anthropic's error event.
 */
export class AnthropicStream implements StreamTranslator {
  #started = false;
  /** The index of the open block, -1 when none is open. */
  #open = -1;
  #openKind: "text" | "tool" | undefined;
  #blocks = 0;
  /** OpenAI tool call index → Anthropic block index. */
  readonly #toolBlocks = new Map<number, number>();

  text(text: string, facts: StreamFacts): string {
    let out = this.#start(facts);
    if (this.#openKind !== "text") out += this.#openBlock("text", { type: "text", text: "" });
    return (
      out +
      event("content_block_delta", {
        type: "content_block_delta",
        index: this.#open,
        delta: { type: "text_delta", text },
      })
    );
  }

  toolCall(index: number, id: string, name: string, facts: StreamFacts): string {
    const out = this.#start(facts) + this.#openBlock("tool", { type: "tool_use", id, name, input: {} });
    this.#toolBlocks.set(index, this.#open);
    return out;
  }

  toolArguments(index: number, text: string): string {
    const block = this.#toolBlocks.get(index);
    if (block === undefined) return "";
    const delta = { type: "input_json_delta", partial_json: text };
    return event("content_block_delta", { type: "content_block_delta", index: block, delta });
  }

  error(message: string, facts: StreamFacts): string {
    return this.#start(facts) + anthropicErrorEvent("api_error", message);
  }

  end(facts: StreamFacts): string {
    const usage = anthropicUsage(facts.usage);
    const delta = { stop_reason: stopReasonOf(facts.finishReason), stop_sequence: null };
    return (
      this.#start(facts) +
      this.#closeBlock() +
      event("message_delta", { type: "message_delta", delta, usage }) +
      event("message_stop", { type: "message_stop" })
    );
  }

  #start(facts: StreamFacts): string {
    if (this.#started) return "";
    this.#started = true;
    const message = {
      id: messageIdOf(facts.id),
      type: "message",
      role: "assistant",
      model: facts.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // OpenAI streams report usage at their end: the counts come in message_delta.
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return event("message_start", { type: "message_start", message });
  }

  #openBlock(kind: "text" | "tool", block: Record<string, unknown>): string {
    const close = this.#closeBlock();
    this.#open = this.#blocks++;
    this.#openKind = kind;
    const start = event("content_block_start", {
      type: "content_block_start",
      index: this.#open,
      content_block: block,
    });
    return close + start + (this.#open === 0 ? PING : "");
  }

  #closeBlock(): string {
    if (this.#open < 0) return "";
    const stop = event("content_block_stop", { type: "content_block_stop", index: this.#open });
    this.#open = -1;
    this.#openKind = undefined;
    return stop;
  }
}
