import type { AnswerFormat } from "../translating-writer.ts";
import { anthropicEnvelope } from "./errors.ts";
import { toAnthropicMessage } from "./response.ts";
import { AnthropicStream } from "./stream.ts";

/** The answer format of POST /v1/messages. */
export function anthropicFormat(requestedModel: string): AnswerFormat {
  return {
    streamType: "text/event-stream; charset=utf-8",
    stream: () => new AnthropicStream(),
    completion: (completion) => toAnthropicMessage(completion, requestedModel),
    envelope: anthropicEnvelope,
  };
}
