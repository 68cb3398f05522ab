// A streamed Gemini answer (alt=sse): `data: <GenerateContentResponse>` events separated by CRLF CRLF, text split over
// several events, a function call whole in one, finishReason and the final usageMetadata on the last; no end marker.
import { splitIntoChunks } from "./content.ts";
import type { Exchange } from "./server.ts";
import { EventWriter } from "./stream.ts";

export interface GeminiStreamPlan {
  parts: Array<Record<string, unknown>>;
  finishReason: string;
  usageMetadata: Record<string, number>;
  modelVersion: string;
  responseId: string;
}

export async function streamGemini(exchange: Exchange, plan: GeminiStreamPlan): Promise<void> {
  // Google's SSE uses CRLF line endings unless the test asks for something else.
  const eol = exchange.options.lineEnding ?? "\r\n";
  const writer = new EventWriter(exchange, "text/event-stream", {});
  const event = (data: unknown) => `data: ${JSON.stringify(data)}${eol}${eol}`;
  const base = { modelVersion: plan.modelVersion, responseId: plan.responseId };
  const pieces: Array<Array<Record<string, unknown>>> = [];
  for (const part of plan.parts) {
    if (typeof part["text"] === "string") {
      for (const piece of splitIntoChunks(part["text"], exchange.options.chunks ?? 5)) pieces.push([{ text: piece }]);
    } else pieces.push([part]);
  }
  const events = pieces.map((parts, index) => {
    const last = index === pieces.length - 1;
    const candidate: Record<string, unknown> = { content: { parts, role: "model" }, index: 0 };
    if (last) candidate["finishReason"] = plan.finishReason;
    const usage = last
      ? plan.usageMetadata
      : {
          promptTokenCount: plan.usageMetadata["promptTokenCount"],
          totalTokenCount: plan.usageMetadata["promptTokenCount"],
        };
    return event({ candidates: [candidate], usageMetadata: usage, ...base });
  });
  for (const [index, text] of events.entries()) {
    if (exchange.errorAfter !== undefined && index === exchange.errorAfter) {
      const error = {
        error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" },
      };
      if (await writer.write(event(error))) writer.end();
      return;
    }
    if (!(await writer.write(text))) return;
  }
  writer.end();
}
