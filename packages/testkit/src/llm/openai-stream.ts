// A streamed chat completion as OpenAI-compatible servers send it: SSE chunks (role, content or tool-call deltas),
// the finish chunk, an optional usage chunk, then data: [DONE].
import { splitIntoChunks } from "./content.ts";
import type { Flavor } from "./openai-routes.ts";
import type { ChatAnswer } from "./reply.ts";
import type { Exchange } from "./server.ts";
import { EventWriter } from "./stream.ts";

export interface StreamPlan {
  id: string;
  model: string;
  fingerprint: string;
  answer: ChatAnswer;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  includeUsage: boolean;
  headers: Record<string, string>;
}

export async function streamChat(exchange: Exchange, flavor: Flavor, plan: StreamPlan): Promise<void> {
  const eol = exchange.options.lineEnding ?? "\n";
  const contentType = flavor === "ollama" ? "text/event-stream" : "text/event-stream; charset=utf-8";
  const writer = new EventWriter(exchange, contentType, plan.headers);
  const created = Math.floor(Date.now() / 1000);
  const base = { id: plan.id, object: "chat.completion.chunk", created, model: plan.model };
  const event = (data: string) => `data: ${data}${eol}${eol}`;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
    event(
      JSON.stringify({
        ...base,
        system_fingerprint: plan.fingerprint,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
        ...(plan.includeUsage ? { usage: null } : {}),
      }),
    );
  const deltas: Array<Record<string, unknown>> = [];
  const role = flavor === "ollama" ? { role: "assistant" } : {};
  const chunks = exchange.options.chunks ?? 5;
  if (plan.answer.toolCalls) {
    plan.answer.toolCalls.forEach((call, index) => {
      if (flavor === "ollama") {
        const whole = {
          index,
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        };
        deltas.push({ ...role, content: "", tool_calls: [whole] });
        return;
      }
      const header = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
      // As OpenAI does: the first tool call's header travels with the role, later headers alone.
      deltas.push(
        index === 0
          ? { role: "assistant", content: null, tool_calls: [header], refusal: null }
          : { tool_calls: [header] },
      );
      for (const fragment of splitIntoChunks(call.arguments, chunks)) {
        deltas.push({ tool_calls: [{ index, function: { arguments: fragment } }] });
      }
    });
  } else {
    if (flavor === "openai") deltas.push({ role: "assistant", content: "", refusal: null });
    for (const piece of splitIntoChunks(plan.answer.text, chunks)) deltas.push({ ...role, content: piece });
  }
  for (const delta of deltas) {
    if (!(await writer.write(chunk(delta, null)))) return;
  }
  const finalDelta = flavor === "ollama" ? { role: "assistant", content: "" } : {};
  if (!(await writer.write(chunk(finalDelta, plan.answer.finishReason)))) return;
  if (plan.includeUsage) {
    const usageChunk = { ...base, system_fingerprint: plan.fingerprint, choices: [], usage: plan.usage };
    if (!(await writer.write(event(JSON.stringify(usageChunk))))) return;
  }
  if (!(await writer.write(event("[DONE]")))) return;
  writer.end();
}
