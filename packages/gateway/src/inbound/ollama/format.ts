import type { OpenAiUsage } from "../openai-answer.ts";
import type { AnswerFormat } from "../translating-writer.ts";
import { ollamaEnvelope } from "./errors.ts";
import { type OllamaEndpoint, toOllamaAnswer } from "./response.ts";
import { OllamaStream } from "./stream.ts";

/** The answer format of POST /api/chat or /api/generate; `model` is named as the client named it. */
export function ollamaFormat(endpoint: OllamaEndpoint, model: string): AnswerFormat {
  const startedAt = performance.now();
  return {
    streamType: "application/x-ndjson",
    stream: () => new OllamaStream(endpoint, model, startedAt),
    completion: (completion) => toOllamaAnswer(endpoint, completion, model, startedAt),
    envelope: ollamaEnvelope(model),
  };
}

interface OpenAiEmbeddings {
  data?: Array<{ embedding?: unknown }>;
  usage?: OpenAiUsage;
}

/** The answer format of POST /api/embed (`embeddings`) and the older /api/embeddings (one `embedding`). */
export function ollamaEmbedFormat(legacy: boolean, model: string): AnswerFormat<OpenAiEmbeddings> {
  const startedAt = performance.now();
  return {
    streamType: "application/json",
    completion: (list) => {
      const vectors = (list.data ?? []).map((entry) => entry.embedding);
      if (legacy) return { embedding: vectors[0] ?? [] };
      return {
        model,
        embeddings: vectors,
        total_duration: Math.round((performance.now() - startedAt) * 1e6),
        load_duration: 0,
        prompt_eval_count: list.usage?.prompt_tokens ?? 0,
      };
    },
    envelope: ollamaEnvelope(model),
  };
}
