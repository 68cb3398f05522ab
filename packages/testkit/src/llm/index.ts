// Fake LLM servers: an OpenAI-compatible server (OpenAI, vLLM, llama.cpp, LM Studio, exo) and an Ollama server.

import { ollamaError, ollamaRoutes } from "./ollama-routes.ts";
import { openAiError, openAiFaultBody, openAiRoutes, openAiUnauthorized } from "./openai-routes.ts";
import { type Dialect, startFakeServer } from "./server.ts";
import type { FakeLlmOptions, FakeLlmServer } from "./types.ts";

export { defaultReply, embeddingOf } from "./content.ts";
export type {
  Capability,
  ChatMessage,
  ChatRequest,
  FakeLlmOptions,
  FakeLlmServer,
  FakeModel,
  Fault,
  FaultScope,
  RecordedRequest,
  Reply,
  ToolCall,
} from "./types.ts";

const OPENAI_INFERENCE = new Set(["/v1/chat/completions", "/v1/completions", "/v1/embeddings"]);
const OLLAMA_INFERENCE = new Set([...OPENAI_INFERENCE, "/api/chat", "/api/generate", "/api/embed", "/api/embeddings"]);

const openAiDialect: Dialect = {
  routes: new Map(openAiRoutes("openai")),
  isInference: (path) => OPENAI_INFERENCE.has(path),
  faultBody: (status) => openAiFaultBody(status),
  unauthorized: openAiUnauthorized,
  notFound: (exchange) => openAiError(exchange, 404, `Invalid URL (${exchange.method} ${exchange.path})`),
};

const ollamaDialect: Dialect = {
  routes: new Map([...ollamaRoutes(), ...openAiRoutes("ollama")]),
  isInference: (path) => OLLAMA_INFERENCE.has(path),
  faultBody: (status, path) =>
    path.startsWith("/v1/") ? openAiFaultBody(status) : { error: `fake fault: status ${status}` },
  unauthorized: (exchange, provided) =>
    exchange.path.startsWith("/v1/")
      ? openAiUnauthorized(exchange, provided)
      : ollamaError(exchange, 401, "unauthorized"),
  notFound: (exchange) => {
    if (exchange.path.startsWith("/v1/")) {
      return openAiError(exchange, 404, `Invalid URL (${exchange.method} ${exchange.path})`);
    }
    exchange.res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found");
  },
};

/** An OpenAI-compatible server: GET /v1/models, POST /v1/chat/completions (JSON and SSE), POST /v1/embeddings. */
export function startFakeOpenAI(options: FakeLlmOptions = {}): Promise<FakeLlmServer> {
  return startFakeServer(options, openAiDialect);
}

/** An Ollama server: its native /api/* endpoints and its OpenAI-compatible /v1/* endpoints. */
export function startFakeOllama(options: FakeLlmOptions = {}): Promise<FakeLlmServer> {
  return startFakeServer(options, ollamaDialect);
}
