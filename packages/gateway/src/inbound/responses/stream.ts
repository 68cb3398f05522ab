import type { StreamFacts, StreamTranslator } from "../openai-answer.ts";
import { newId, type OutputItem, type ResponseDraft, statusOf } from "./response.ts";

/**
 * OpenAI chunks → the Responses API's semantic events, each with its sequence_number: response.created and
 * response.in_progress; per output item output_item.added, then for a message content_part.added, output_text.delta
 * and .done, content_part.done, for a function call function_call_arguments.delta and .done; output_item.done; then
 * response.completed (response.incomplete when the token limit cut it). A break-off is `error` then response.failed.
 */
export class ResponsesStream implements StreamTranslator {
  readonly #output: OutputItem[] = [];
  #sequence = 0;
  #started = false;
  /** The open item, if any. */
  #open: OutputItem | undefined;
  /** OpenAI tool call index → its output item. */
  readonly #calls = new Map<number, Extract<OutputItem, { type: "function_call" }>>();

  constructor(
    private readonly draft: ResponseDraft,
    private readonly onDone: (response: Record<string, unknown>, output: OutputItem[]) => void,
  ) {}

  text(text: string, facts: StreamFacts): string {
    let out = this.#start(facts);
    let item = this.#open;
    if (item?.type !== "message") {
      out += this.#close();
      item = { type: "message", id: newId("msg"), status: "in_progress", role: "assistant", content: [] };
      out += this.#add(item);
      const part = { type: "output_text" as const, text: "", annotations: [] };
      out += this.#event("response.content_part.added", {
        item_id: item.id,
        output_index: this.#index(),
        content_index: 0,
        part,
      });
      item.content.push(part);
    }
    item.content[0]!.text += text;
    return (
      out +
      this.#event("response.output_text.delta", {
        item_id: item.id,
        output_index: this.#index(),
        content_index: 0,
        delta: text,
        logprobs: [],
      })
    );
  }

  toolCall(index: number, id: string, name: string, facts: StreamFacts): string {
    const out = this.#start(facts) + this.#close();
    const item: Extract<OutputItem, { type: "function_call" }> = {
      type: "function_call",
      id: newId("fc"),
      call_id: id,
      name,
      arguments: "",
      status: "in_progress",
    };
    this.#calls.set(index, item);
    return out + this.#add(item);
  }

  toolArguments(index: number, text: string): string {
    const item = this.#calls.get(index);
    if (item === undefined) return "";
    item.arguments += text;
    const at = this.#output.indexOf(item);
    return this.#event("response.function_call_arguments.delta", { item_id: item.id, output_index: at, delta: text });
  }

  error(message: string, facts: StreamFacts): string {
    const error = { code: "server_error", message };
    const failed = this.draft.object("failed", this.#output, facts.usage, facts.model, error);
    return (
      this.#start(facts) +
      this.#event("error", { code: "server_error", message, param: null }) +
      this.#event("response.failed", { response: failed })
    );
  }

  end(facts: StreamFacts): string {
    const out = this.#start(facts) + this.#close();
    const status = statusOf(facts.finishReason);
    const response = this.draft.object(status, this.#output, facts.usage, facts.model);
    this.onDone(response, this.#output);
    return out + this.#event(status === "completed" ? "response.completed" : "response.incomplete", { response });
  }

  #start(facts: StreamFacts): string {
    if (this.#started) return "";
    this.#started = true;
    const response = this.draft.object("in_progress", [], undefined, facts.model);
    return this.#event("response.created", { response }) + this.#event("response.in_progress", { response });
  }

  #add(item: OutputItem): string {
    this.#output.push(item);
    this.#open = item;
    return this.#event("response.output_item.added", {
      output_index: this.#index(),
      item: { ...item, ...emptied(item) },
    });
  }

  /** Closes the open item with its .done events. */
  #close(): string {
    const item = this.#open;
    if (item === undefined) return "";
    this.#open = undefined;
    const at = this.#output.indexOf(item);
    item.status = "completed";
    let out = "";
    if (item.type === "message") {
      const part = item.content[0]!;
      out += this.#event("response.output_text.done", {
        item_id: item.id,
        output_index: at,
        content_index: 0,
        text: part.text,
        logprobs: [],
      });
      out += this.#event("response.content_part.done", { item_id: item.id, output_index: at, content_index: 0, part });
    } else {
      out += this.#event("response.function_call_arguments.done", {
        item_id: item.id,
        output_index: at,
        arguments: item.arguments,
      });
    }
    return out + this.#event("response.output_item.done", { output_index: at, item });
  }

  #index(): number {
    return this.#output.length - 1;
  }

  #event(type: string, data: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.#sequence++, ...data })}\n\n`;
  }
}

/** An item as it is announced: nothing in it yet. */
function emptied(item: OutputItem): Partial<OutputItem> {
  return item.type === "message" ? { content: [] } : { arguments: "" };
}
