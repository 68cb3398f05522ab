// Fake LLM servers: an OpenAI-compatible server (OpenAI, vLLM, llama.cpp, LM Studio, exo), an Ollama server, and
// Anthropic's and Google's native APIs.

import {
  anthropicCredential,
  anthropicError,
  anthropicFaultBody,
  anthropicRoutes,
  anthropicUnauthorized,
} from "./anthropic-routes.ts";
import {
  googleCredential,
  googleError,
  googleFaultBody,
  googleRoute,
  googleRoutes,
  googleUnauthorized,
} from "./google-routes.ts";
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

const OPENAI_INFERENCE = new Set(["/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/responses"]);
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

const anthropicDialect: Dialect = {
  routes: new Map(anthropicRoutes()),
  isInference: (path) => path === "/v1/messages" || path === "/v1/messages/count_tokens",
  faultBody: (status) => anthropicFaultBody(status),
  unauthorized: anthropicUnauthorized,
  credential: anthropicCredential,
  notFound: (exchange) => anthropicError(exchange, 404, "not_found_error", "Not found"),
};

const googleDialect: Dialect = {
  routes: new Map(googleRoutes()),
  route: googleRoute,
  isInference: (path) => /:((stream)?[gG]enerateContent|batchEmbedContents)$/.test(path),
  faultBody: (status) => googleFaultBody(status),
  unauthorized: googleUnauthorized,
  credential: googleCredential,
  notFound: (exchange) => googleError(exchange, 404, `Method not found: ${exchange.method} ${exchange.path}`),
};

/** Anthropic's Messages API: GET /v1/models, POST /v1/messages (JSON and SSE); the key in x-api-key. */
export function startFakeAnthropic(options: FakeLlmOptions = {}): Promise<FakeLlmServer> {
  return startFakeServer(options, anthropicDialect);
}

/** Google's Gemini API: GET /v1beta/models, generateContent and streamGenerateContent?alt=sse; the key in x-goog-api-key. */
export function startFakeGoogle(options: FakeLlmOptions = {}): Promise<FakeLlmServer> {
  return startFakeServer(options, googleDialect);
}

/** An OpenAI-compatible server: GET /v1/models, POST /v1/chat/completions (JSON and SSE), POST /v1/embeddings. */
export function startFakeOpenAI(options: FakeLlmOptions = {}): Promise<FakeLlmServer> {
  return startFakeServer(options, openAiDialect);
}

/** An Ollama server: its native /api/* endpoints and its OpenAI-compatible /v1/* endpoints. */
export function startFakeOllama(options: FakeLlmOptions = {}): Promise<FakeLlmServer> {
  return startFakeServer(options, ollamaDialect);
}
