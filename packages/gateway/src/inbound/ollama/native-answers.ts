import type { AnswerDialect } from "../../dispatch/answer-dialect.ts";
import { LineFramer } from "../../dispatch/line-framer.ts";

const NDJSON = /^application\/x-ndjson/i;

/**
 * Ollama's chat and generate answers as an ollama backend wrote them, relayed to a client of Ollama's API: NDJSON
 * streams line by line, a stream that broke off ends with Ollama's `{"error": ...}` line, and the backend reads the
 * counts (OllamaCountsTap).
 */
export const OLLAMA_ANSWERS: AnswerDialect = {
  streams: (contentType) => NDJSON.test(contentType),
  framer: () => new LineFramer(),
  streamHeaders: (headers) => {
    headers["content-type"] = "application/x-ndjson";
    return headers;
  },
  broken: (message) => `${JSON.stringify({ error: message })}\n`,
  tokens: () => undefined,
};
