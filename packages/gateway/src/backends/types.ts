import type { Readable } from "node:stream";
import type { BackendSettings, Capability } from "../config/types.ts";
import type { ResponseSink, UpstreamCall } from "./upstream-call.ts";

/** A model as a backend reports it. `undefined` means "not known": routing never excludes on unknown facts. */
export interface ModelInfo {
  id: string;
  contextLength?: number | undefined;
  capabilities?: ReadonlySet<Capability> | undefined;
  /** Unix seconds, when the backend reports it. */
  created?: number | undefined;
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
  input: string | string[];
  encodingFormat: "float" | "base64" | undefined;
  dimensions: number | undefined;
  /** The client's JSON body with `model` already set to the resolved name. */
  json: string;
}

/** One backend protocol. Every type speaks OpenAI chat; they differ in discovery and embeddings. */
export interface Backend {
  readonly settings: BackendSettings;
  /** Fetches the model list (and what is known about each model); throws when the backend is not usable. */
  probe(timeoutMs: number): Promise<ModelInfo[]>;
  /** Sends an OpenAI chat completion body as is; the response is delivered to `sink` as it arrives. */
  chat(body: string | Buffer, requestId: string, sink: ResponseSink): UpstreamCall;
  /** Computes embeddings and answers in OpenAI's format. */
  embeddings(call: EmbeddingsCall, requestId: string, signal: AbortSignal): Promise<UpstreamReply>;
  close(): Promise<void>;
}

/** A failure to get any HTTP answer from a backend (refused, reset, DNS, timeout). */
export class UpstreamUnreachable extends Error {
  override readonly name = "UpstreamUnreachable";
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}
