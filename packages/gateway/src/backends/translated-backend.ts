import type { BackendSettings } from "../config/types.ts";
import { BackendHttpClient } from "./http-client.ts";
import type { BackendContext } from "./module.ts";
import { type ChatRequest, TranslationError } from "./openai-chat.ts";
import { answerLocally, type ResponseTranslator, TranslatingSink } from "./translated-call.ts";
import type { Backend, EmbeddingsCall, ModelInfo, UpstreamReply } from "./types.ts";
import type { ResponseSink, UpstreamCall } from "./upstream-call.ts";

/** A request in the provider's own format. */
export interface NativeRequest {
  /** Path below the backend's base URL (query included). */
  path: string;
  body: string;
  stream: boolean;
}

/**
 * A backend whose provider does not speak OpenAI's API. Dispatch calls `chat()` with an OpenAI body and gets OpenAI's
 * answer, exactly as from a pass-through backend; the translation happens behind it, in the type's own transforms.
 */
export abstract class TranslatedBackend implements Backend {
  protected readonly client: BackendHttpClient;

  constructor(
    readonly settings: BackendSettings,
    protected readonly context: BackendContext,
    authHeaders: Record<string, string>,
  ) {
    this.client = new BackendHttpClient(settings, context.timeouts, authHeaders);
  }

  abstract probe(timeoutMs: number): Promise<ModelInfo[]>;

  /** OpenAI chat request → the provider's request. Throws TranslationError for what cannot be carried over. */
  protected abstract toNative(request: ChatRequest): NativeRequest;

  /** The translator of one call's answer. */
  protected abstract translator(request: ChatRequest): ResponseTranslator;

  chat(body: string | Buffer, requestId: string, sink: ResponseSink): UpstreamCall {
    const request = JSON.parse(typeof body === "string" ? body : body.toString("utf8")) as ChatRequest;
    let native: NativeRequest;
    try {
      native = this.toNative(request);
    } catch (error) {
      if (error instanceof TranslationError) return answerLocally(sink, 400, error.envelope());
      throw error;
    }
    const translating = new TranslatingSink({
      out: sink,
      translator: this.translator(request),
      stream: native.stream,
      secret: this.settings.apiKey,
      onSettled: (usage) => {
        if (usage) this.context.onUsage({ backend: this.settings.name, model: request.model, usage, reported: true });
      },
    });
    return this.client.dispatch(native.path, native.body, requestId, translating);
  }

  async embeddings(_call: EmbeddingsCall, _requestId: string, _signal: AbortSignal): Promise<UpstreamReply> {
    // Routing never sends embeddings here (no model of these types lists the capability); answer clearly if it does.
    const body = {
      error: {
        message: `embeddings are not available on ${this.settings.type} backends`,
        type: "invalid_request_error",
        param: "model",
        code: "embeddings_unsupported",
      },
    };
    return { statusCode: 400, contentType: "application/json", body: Buffer.from(JSON.stringify(body)) };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
