import type { BackendSettings } from "../../config/types.ts";
import { BackendHttpClient } from "../http-client.ts";
import { modelFromListEntry } from "../model-facts.ts";
import type { BackendContext } from "../module.ts";
import { plainNativeChat } from "../native-calls.ts";
import type { Backend, CallIds, EmbeddingsCall, ModelInfo, NativeApis, UpstreamReply } from "../types.ts";
import type { ResponseSink, UpstreamCall } from "../upstream-call.ts";

/**
 * vLLM, llama.cpp server, LM Studio, exo and generic OpenAI-compatible servers: chat relayed byte for byte, and the
 * text completions (code completion's API) of the servers that serve them.
 */
export class OpenAICompatibleBackend implements Backend {
  protected readonly client: BackendHttpClient;
  readonly natives: NativeApis | undefined;

  constructor(
    readonly settings: BackendSettings,
    protected readonly context: BackendContext,
    options: { authHeaders?: Record<string, string>; completions?: boolean } = {},
  ) {
    this.client = new BackendHttpClient(settings, context.limits, options.authHeaders);
    this.natives = options.completions ? { "openai-completions": { chat: plainNativeChat(this.client) } } : undefined;
  }

  async probe(timeoutMs: number, stop: AbortSignal): Promise<ModelInfo[]> {
    const list = await this.client.getJson("/v1/models", timeoutMs, stop);
    const data = list && typeof list === "object" ? (list as Record<string, unknown>)["data"] : undefined;
    if (!Array.isArray(data)) throw new Error("GET /v1/models answered without a data array");
    const models: ModelInfo[] = [];
    for (const entry of data) {
      const model = modelFromListEntry(entry);
      if (model) models.push(model);
    }
    return models;
  }

  chat(body: string | Buffer, ids: CallIds, sink: ResponseSink): UpstreamCall {
    return this.client.dispatch("/v1/chat/completions", body, ids, sink);
  }

  embeddings(call: EmbeddingsCall, ids: CallIds, signal: AbortSignal): Promise<UpstreamReply> {
    return this.client.fetch("POST", "/v1/embeddings", call.body, { signal, ids });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
