import { thrownMessage } from "@switchboard/common";
import type { BackendSettings } from "../config/types.ts";
import type { ChatBody } from "../request/chat.ts";
import { BackendHttpClient } from "./http-client.ts";
import type { BackendContext } from "./module.ts";
import { TranslationError } from "./openai-chat.ts";
import type { NativeRequest, RequestOptions, RequestTranslation } from "./request-translation.ts";
import { translateOffThread } from "./translate-off-thread.ts";
import { answerLocally, type ResponseTranslator, TranslatingSink } from "./translated-call.ts";
import type { Backend, CallIds, EmbeddingsCall, ModelInfo, UpstreamReply } from "./types.ts";
import { PendingCall, type ResponseSink, type UpstreamCall } from "./upstream-call.ts";

/** Bodies at least this large are translated on the translation thread (a 256 KiB prompt takes ~2 ms here). */
export const OFF_THREAD_BYTES = 256 * 1024;

/** A translation that threw what it should not have (a bug): answered, never a crash. */
function translationFailed(detail: string): unknown {
  return {
    error: {
      message: `The request could not be translated for this backend: ${detail}`,
      type: "server_error",
      param: null,
      code: "translation_failed",
    },
  };
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
    this.client = new BackendHttpClient(settings, context.limits, authHeaders);
  }

  abstract probe(timeoutMs: number, stop: AbortSignal): Promise<ModelInfo[]>;

  /** OpenAI chat request → the provider's request. Throws TranslationError for what cannot be carried over. */
  protected abstract readonly translation: RequestTranslation<unknown>;

  /** The translator of one call's answer; it reads only the request's top-level options (RESPONSE_FIELDS). */
  protected abstract translator(request: RequestOptions): ResponseTranslator;

  chat(body: string | Buffer, ids: CallIds, sink: ResponseSink): UpstreamCall {
    if (typeof body !== "string" && body.length >= OFF_THREAD_BYTES) return this.#chatOffThread(body, ids, sink);
    const request = JSON.parse(typeof body === "string" ? body : body.toString("utf8")) as ChatBody;
    let native: NativeRequest;
    try {
      native = this.translation.translate(request, this.translation.options);
    } catch (error) {
      if (error instanceof TranslationError) return answerLocally(sink, 400, error.envelope());
      throw error;
    }
    return this.#send(native, request, ids, sink);
  }

  /** A large body: parsed and re-encoded on the translation thread, sent from here once it is ready. */
  #chatOffThread(body: Buffer, ids: CallIds, sink: ResponseSink): UpstreamCall {
    const pending = new PendingCall(sink);
    translateOffThread(body, this.translation).then(
      (reply) => {
        if (pending.aborted) return;
        if ("native" in reply) {
          const { path, stream, body: bytes } = reply.native;
          pending.begin(this.#send({ path, stream, body: Buffer.from(bytes) }, reply.options, ids, sink));
        } else if ("refused" in reply) pending.begin(answerLocally(sink, 400, reply.refused));
        else pending.begin(answerLocally(sink, 500, translationFailed(reply.failed)));
      },
      // The thread died or could not start: translated here instead, slower but correct.
      () => {
        if (pending.aborted) return;
        try {
          pending.begin(this.chat(body.toString("utf8"), ids, sink));
        } catch (error) {
          pending.begin(answerLocally(sink, 500, translationFailed(thrownMessage(error))));
        }
      },
    );
    return pending;
  }

  #send(native: NativeRequest, request: RequestOptions, ids: CallIds, sink: ResponseSink): UpstreamCall {
    const translating = new TranslatingSink({
      out: sink,
      translator: this.translator(request),
      stream: native.stream,
      secret: this.settings.apiKey,
      onSettled: (usage) => {
        if (usage) this.context.onUsage({ backend: this.settings.name, model: request.model, usage, reported: true });
      },
    });
    return this.client.dispatch(native.path, native.body, ids, translating);
  }

  async embeddings(_call: EmbeddingsCall, _ids: CallIds, _signal: AbortSignal): Promise<UpstreamReply> {
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
