import type { Readable } from "node:stream";
import type { BackendSettings, Capability } from "../config/types.ts";
import type { ChatBody } from "../request/chat.ts";
import type { EmbeddingText } from "../request/embeddings.ts";
import type { ResponseSink, UpstreamCall } from "./upstream-call.ts";

/** A model as a backend reports it. `undefined` means "not known": routing never excludes on unknown facts. */
export interface ModelInfo {
  id: string;
  contextLength?: number | undefined;
  capabilities?: ReadonlySet<Capability> | undefined;
  /** Unix seconds, when the backend reports it. */
  created?: number | undefined;
}

/**
 * What identifies one client request to a backend: its id (sent as x-request-id) and the client's W3C trace context
 * (sent as traceparent, so a backend that traces joins the client's trace).
 */
export interface CallIds {
  requestId: string;
  traceparent?: string | undefined;
}

/** An upstream answer whose body has not been read yet. */
export interface UpstreamResponse {
  statusCode: number;
  contentType: string;
  body: Readable & { text(): Promise<string>; arrayBuffer(): Promise<ArrayBuffer> };
}

/** An upstream answer read in full. */
export interface UpstreamReply {
  statusCode: number;
  contentType: string;
  body: Buffer;
}

export interface EmbeddingsCall {
  model: string;
  /** Long texts are LongText (left in the parse worker): read their bytes through inputJson(). */
  input: EmbeddingText | EmbeddingText[];
  encodingFormat: "float" | "base64" | undefined;
  dimensions: number | undefined;
  /** The client's JSON body with `model` already set to the resolved name (its own bytes when unchanged). */
  body: string | Buffer;
  /** The `input` value as JSON text: the client's bytes of it when its texts stayed in the parse worker. */
  inputJson(): string | Buffer;
}

/** A chat body as dispatch parsed it: its long texts may be LongText (see http/long-texts.ts). */
export interface ParsedChat {
  body: ChatBody;
  /** The model name the bytes carry (the backend's, where the body says the client's). */
  model: string;
}

/**
 * The APIs besides OpenAI's chat completions that a backend type may speak natively: Anthropic's Messages on
 * anthropic backends, Ollama's chat and generate on ollama backends, OpenAI's Responses on openai backends, OpenAI's
 * text completions on the local OpenAI-compatible servers that serve them.
 */
export type NativeApi = "anthropic-messages" | "ollama" | "openai-responses" | "openai-completions" | "gemini-generate";

/** A request of a backend's own API, as its client wrote it. */
interface NativeCall {
  /** The endpoint of that API the client called (/v1/messages, /api/chat, /api/generate). */
  path: string;
  /** The client's body, with the backend's model name. */
  body: string | Buffer;
  /** That model name (what spend is priced by). */
  model: string;
  /** The client's headers the provider reads (Anthropic's betas). */
  headers: Readonly<Record<string, string>>;
}

/** A backend's own API, for clients of that API: their requests go as they wrote them, the answers come back as is. */
export interface NativeChat {
  /** Sends a call; the answer reaches `sink` as the provider wrote it, and its usage through `sink.usage`. */
  chat(call: NativeCall, ids: CallIds, sink: ResponseSink): UpstreamCall;
  /**
   * POSTs to another endpoint of the API, one answered whole (Anthropic's count_tokens, Ollama's show): its answer,
   * whatever its status, as the provider wrote it. Which endpoint is the caller's to know; absent where the gateway
   * calls none.
   */
  call?(call: Omit<NativeCall, "model">, ids: CallIds, signal: AbortSignal): Promise<UpstreamReply>;
}

export type NativeApis = { readonly [api in NativeApi]?: NativeChat };

/** One backend protocol. Every type speaks OpenAI chat; they differ in discovery and embeddings. */
export interface Backend {
  readonly settings: BackendSettings;
  /**
   * Fetches the model list (and what is known about each model); throws when the backend is not usable, or when
   * `stop` aborts (the gateway stops: a probe of a backend that does not answer must not hold the shutdown).
   */
  probe(timeoutMs: number, stop: AbortSignal): Promise<ModelInfo[]>;
  /**
   * Sends an OpenAI chat completion body as is; the response is delivered to `sink` as it arrives. `parsed`, when the
   * caller has it, saves parsing the body again (a type that only reads it must not parse megabytes on the loop).
   */
  chat(body: string | Buffer, ids: CallIds, sink: ResponseSink, parsed?: ParsedChat): UpstreamCall;
  /** The APIs the type speaks besides OpenAI's chat, if any (so thinking blocks and their signatures are kept). */
  readonly natives?: NativeApis;
  /** Loading and unloading models, for the types whose server does it on demand (Ollama); absent otherwise. */
  readonly lifecycle?: ModelLifecycle;
  /** Computes embeddings and answers in OpenAI's format. */
  embeddings(call: EmbeddingsCall, ids: CallIds, signal: AbortSignal): Promise<UpstreamReply>;
  close(): Promise<void>;
}

export interface PullProgress {
  /** What the backend is doing ("pulling manifest", "verifying sha256 digest"). */
  detail: string;
  /** 0..1 when the backend says how far it is. */
  fraction?: number;
}

/** The model lifecycle operations a backend type supports. */
export interface ModelLifecycle {
  /** Fetches the model onto the backend's disk, reporting progress; rejects with the backend's message. */
  pull(model: string, onProgress: (progress: PullProgress) => void, signal: AbortSignal): Promise<void>;
  /** Loads the model into memory; resolves when it is loaded. */
  load(model: string, signal: AbortSignal): Promise<void>;
  /** Frees the model's memory. */
  unload(model: string): Promise<void>;
  /** The models in memory now. */
  inMemory(): Promise<string[]>;
}
