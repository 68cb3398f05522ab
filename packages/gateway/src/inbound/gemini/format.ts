import type { AnswerFormat } from "../translating-writer.ts";
import { geminiEnvelope } from "./errors.ts";
import { toGeminiResponse } from "./response.ts";
import { GeminiStream } from "./stream.ts";

/** The answer format of generateContent and streamGenerateContent (`sse`: with alt=sse). */
export function geminiFormat(requestedModel: string, sse: boolean): AnswerFormat {
  return {
    streamType: sse ? "text/event-stream; charset=utf-8" : "application/json; charset=utf-8",
    stream: () => new GeminiStream(sse),
    completion: (completion) => toGeminiResponse(completion, requestedModel),
    envelope: geminiEnvelope,
  };
}
