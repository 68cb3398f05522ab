/**
 * Public types of the fake LLM servers (an OpenAI-compatible server and an Ollama server) used by the gateway's tests,
 * its benchmark and the Ollama simulator `npm start` runs.
 */

/**
 * Which requests a fault touches. "all" (the default) is every request, model listings and health probes included:
 * the server is broken. "inference" is only chat, completion and embedding requests: listings keep answering, so the
 * server still looks healthy to a prober.
 */
export type FaultScope = "all" | "inference";

export type Fault =
  | { kind: "none" }
  /** Close the listening socket and every open connection: connections are refused until the fault changes. */
  | { kind: "refuse" }
  /** Answer every request in scope with this status; `body` (JSON) replaces the dialect's default error body. */
  | { kind: "status"; status: number; body?: unknown; scope?: FaultScope }
  /** Accept and never answer, until the fault changes (then the request is served under the new fault) or close. */
  | { kind: "stall"; scope?: FaultScope }
  /**
   * Streaming: send `afterChunks` events (SSE `data:` events or NDJSON lines) then destroy the socket. A non-streaming
   * answer sends its headers and half of its body, then destroys the socket.
   */
  | { kind: "die-mid-stream"; afterChunks: number }
  /**
   * Streaming (Anthropic and Google fakes): send `afterChunks` events, then the provider's in-stream error event
   * (Anthropic `event: error` overloaded_error; Google a `data:` error object), then end the response.
   */
  | { kind: "stream-error"; afterChunks: number }
  /** Answer normally after `ms`. */
  | { kind: "delay"; ms: number; scope?: FaultScope };

/** `insert`: fill-in-the-middle (Ollama's `suffix`), which only code models' templates take. */
export type Capability = "completion" | "vision" | "tools" | "embedding" | "json" | "insert";

export interface FakeModel {
  id: string;
  /** Default 8192. */
  contextLength?: number;
  /** Default ["completion", "tools", "json"]. */
  capabilities?: Capability[];
  /** Length of the vectors /embeddings returns for this model (default 16). */
  embeddingDimensions?: number;
  /** Served by OpenAI's Responses API only (gpt-5-codex...): chat completions refuse it, as OpenAI does. */
  responsesOnly?: boolean;
}

/** A message as clients send it: content is a string, null, or an array of parts (text, image_url...). */
export interface ChatMessage {
  role: string;
  content?: unknown;
  name?: string;
  tool_calls?: unknown[];
  tool_call_id?: string;
  [key: string]: unknown;
}

/** The chat request the fake received (Ollama's /api/generate is presented as one user message). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  tools?: unknown[];
  [key: string]: unknown;
}

/** A tool call the fake answers with; `arguments` is serialized to JSON when it is an object. */
export interface ToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

export type Reply = string | { toolCalls: ToolCall[] };

export interface FakeLlmOptions {
  /** Default: a free port on 127.0.0.1. */
  port?: number;
  /** The address to listen on (default 127.0.0.1): the discovery test needs one that mDNS announces. */
  host?: string;
  /** Ollama: models that `/api/pull` can fetch (they join `models` when the pull completes). */
  library?: FakeModel[];
  /** Ollama: progress lines a pull streams between "pulling manifest" and "success" (default 5), and the pause between them (default 20 ms). */
  pullSteps?: number;
  pullStepMs?: number;
  /** Default: one chat model "fake-model". */
  models?: FakeModel[];
  /** SSE line ending; "\r\n" tests CRLF handling. Default "\n". */
  lineEnding?: "\n" | "\r\n";
  /** Content chunks per streamed answer (default 5). */
  chunks?: number;
  /** Pause between streamed chunks in ms (default 0). */
  chunkIntervalMs?: number;
  /**
   * The answer to a chat request. Default (see `defaultReply`): with `tools` offered and a user message last, a call to
   * the first tool with `{"query": <that message>}`; after a tool result, "tool result: <result>"; otherwise
   * "echo: <last user message>".
   */
  reply?: (request: ChatRequest) => Reply;
  /**
   * When set, require this key where the API expects it: `Authorization: Bearer` (OpenAI, Ollama), `x-api-key`
   * (Anthropic), `x-goog-api-key` or `?key=` (Google); otherwise the API's own authentication error.
   */
  apiKey?: string;
  /** Prompt tokens reported as read from the provider's prompt cache (Anthropic and Google fakes; default 0). */
  cachedPromptTokens?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query string as sent ("" or "?..."). */
  query: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the body was JSON, the raw text otherwise, undefined when there was no body. */
  body: unknown;
}

export interface FakeLlmServer {
  /** http://127.0.0.1:PORT (no trailing slash, no /v1). */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  setFault(fault: Fault): void;
  setModels(models: FakeModel[]): void;
  /** Models in memory now (Ollama's /api/ps): every model at start; loads and unloads change it. */
  readonly loadedModels: string[];
  /** Number of requests being answered right now. */
  readonly inFlight: number;
  /** How many responses were cut short by the client going away. */
  aborted(): number;
  /** Closes the listener and every socket; never hangs. */
  close(): Promise<void>;
}
