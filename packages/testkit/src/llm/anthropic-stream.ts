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
    if (block["type"] === "thinking") {
      const start = { type: "thinking", thinking: "" };
      events.push(event("content_block_start", { type: "content_block_start", index, content_block: start }));
      if (index === 0) events.push(event("ping", { type: "ping" }));
      for (const piece of splitIntoChunks(block["thinking"] as string, chunks)) {
        events.push(
          event("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "thinking_delta", thinking: piece },
          }),
        );
      }
      events.push(
        event("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "signature_delta", signature: block["signature"] },
        }),
      );
    } else if (block["type"] === "text") {
      events.push(
        event("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }),
      );
      if (index === 0) events.push(event("ping", { type: "ping" }));
      for (const piece of splitIntoChunks(block["text"] as string, chunks)) {
        events.push(
          event("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "text_delta", text: piece },
          }),
        );
      }
    } else if (block["type"] === "tool_use" || block["type"] === "server_tool_use") {
      const start = { type: block["type"], id: block["id"], name: block["name"], input: {} };
      events.push(event("content_block_start", { type: "content_block_start", index, content_block: start }));
      if (index === 0) events.push(event("ping", { type: "ping" }));
      for (const piece of splitIntoChunks(JSON.stringify(block["input"]), chunks)) {
        events.push(
          event("content_block_delta", {
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: piece },
          }),
        );
      }
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
