// A streamed Anthropic message: message_start, then per content block content_block_start / ping / deltas /
// content_block_stop, then message_delta (stop_reason, output usage) and message_stop. `event:` lines name each event.
import { splitIntoChunks } from "./content.ts";
import type { Exchange } from "./server.ts";
import { EventWriter } from "./stream.ts";

export interface AnthropicStreamPlan {
  id: string;
  model: string;
  content: Array<Record<string, unknown>>;
  stopReason: string;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  };
  headers: Record<string, string>;
}

export async function streamAnthropic(exchange: Exchange, plan: AnthropicStreamPlan): Promise<void> {
  const eol = exchange.options.lineEnding ?? "\n";
  const writer = new EventWriter(exchange, "text/event-stream; charset=utf-8", plan.headers);
  const event = (name: string, data: unknown) => `event: ${name}${eol}data: ${JSON.stringify(data)}${eol}${eol}`;
  const events: string[] = [];
  events.push(
    event("message_start", {
      type: "message_start",
      message: {
        id: plan.id,
        type: "message",
        role: "assistant",
        model: plan.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...plan.usage, output_tokens: 1 },
      },
    }),
  );
  const chunks = exchange.options.chunks ?? 5;
  plan.content.forEach((block, index) => {
    /** The block's opening event (a ping follows the first), then one delta per piece of `text`. */
    const open = (start: Record<string, unknown>, text: string, delta: (piece: string) => Record<string, unknown>) => {
      events.push(event("content_block_start", { type: "content_block_start", index, content_block: start }));
      if (index === 0) events.push(event("ping", { type: "ping" }));
      for (const piece of splitIntoChunks(text, chunks)) {
        events.push(event("content_block_delta", { type: "content_block_delta", index, delta: delta(piece) }));
      }
    };
    const type = block["type"];
    if (type === "thinking") {
      open({ type, thinking: "" }, block["thinking"] as string, (piece) => ({
        type: "thinking_delta",
        thinking: piece,
      }));
      const signature = { type: "signature_delta", signature: block["signature"] };
      events.push(event("content_block_delta", { type: "content_block_delta", index, delta: signature }));
    } else if (type === "text") {
      open({ type, text: "" }, block["text"] as string, (piece) => ({ type: "text_delta", text: piece }));
    } else if (type === "tool_use" || type === "server_tool_use") {
      const start = { type, id: block["id"], name: block["name"], input: {} };
      open(start, JSON.stringify(block["input"]), (piece) => ({ type: "input_json_delta", partial_json: piece }));
    } else {
      // A block the API sends whole (web_search_tool_result).
      events.push(event("content_block_start", { type: "content_block_start", index, content_block: block }));
    }
    events.push(event("content_block_stop", { type: "content_block_stop", index }));
  });
  events.push(
    event("message_delta", {
      type: "message_delta",
      delta: { stop_reason: plan.stopReason, stop_sequence: null },
      usage: { output_tokens: plan.usage.output_tokens },
    }),
  );
  events.push(event("message_stop", { type: "message_stop" }));
  for (const [index, text] of events.entries()) {
    if (exchange.errorAfter !== undefined && index === exchange.errorAfter) {
      const error = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
      if (await writer.write(event("error", error))) writer.end();
      return;
    }
    if (!(await writer.write(text))) return;
  }
  writer.end();
}
