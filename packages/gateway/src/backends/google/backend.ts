import { randomUUID } from "node:crypto";
import type { BackendSettings } from "../../config/types.ts";
import { type BackendContext, optionsOf } from "../module.ts";
import { tappedNativeChat, wholeNativeCall } from "../native-calls.ts";
import type { RequestOptions, RequestTranslation } from "../request-translation.ts";
import { TranslatedBackend } from "../translated-backend.ts";
import type { ResponseTranslator } from "../translated-call.ts";
import type { CallIds, EmbeddingsCall, ModelInfo, NativeApis, UpstreamReply } from "../types.ts";
import type { TokenUsage } from "../usage.ts";
import { batchEmbedRequest, toOpenAiEmbeddings } from "./embeddings.ts";
import { toOpenAiError } from "./errors.ts";
import { GeminiUsageReader } from "./native-generate.ts";
import { googleOptions } from "./options.ts";
import { type GoogleRequestOptions, googleNativeRequest, REQUEST_MODULE } from "./request.ts";
import { toChatCompletion, usageOf } from "./response.ts";
import { GeminiStreamTranslator } from "./stream.ts";
import type { GeminiResponse } from "./types.ts";

/** Google's Gemini API behind OpenAI's chat completions. The key travels in x-goog-api-key, never in the URL. */
export class GoogleBackend extends TranslatedBackend {
  protected readonly translation: RequestTranslation<GoogleRequestOptions>;

  constructor(settings: BackendSettings, context: BackendContext) {
    super(settings, context, { "x-goog-api-key": settings.apiKey ?? "" });
    this.translation = {
      translate: googleNativeRequest,
      module: REQUEST_MODULE,
      exportName: "googleNativeRequest",
      options: { version: optionsOf(settings, googleOptions).api_version ?? "v1beta" },
    };
  }

  /** The gateway's Gemini API, as its clients wrote their requests (thought signatures, Google's own tools...). */
  readonly natives: NativeApis = {
    "gemini-generate": {
      chat: tappedNativeChat(this.client, this.context, this.settings.name, () => new GeminiUsageReader()),
      call: wholeNativeCall(this.client),
    },
  };

  /** GET /{version}/models: free. Models that generate content, and embedding models (served by batchEmbedContents). */
  async probe(timeoutMs: number, stop: AbortSignal): Promise<ModelInfo[]> {
    const { version } = this.translation.options;
    const list = (await this.client.getJson(`/${version}/models?pageSize=1000`, timeoutMs, stop)) as {
      models?: unknown;
    } | null;
    if (!list || !Array.isArray(list.models)) throw new Error(`GET /${version}/models answered without models`);
    const models: ModelInfo[] = [];
    for (const entry of list.models as Array<Record<string, unknown>>) {
      const name = entry?.["name"];
      const methods = entry?.["supportedGenerationMethods"];
      if (typeof name !== "string" || !Array.isArray(methods)) continue;
      const embeds = methods.includes("embedContent");
      if (!methods.includes("generateContent") && !embeds) continue;
      const limit = entry["inputTokenLimit"];
      const id = name.replace(/^models\//, "");
      models.push({
        id,
        contextLength: typeof limit === "number" && limit > 0 ? limit : undefined,
        capabilities: embeds
          ? new Set(["embeddings"])
          : /^gemini/.test(id)
            ? new Set(["completion", "vision", "tools", "json"])
            : new Set(["completion"]),
      });
    }
    return models;
  }

  override async embeddings(call: EmbeddingsCall, ids: CallIds, signal: AbortSignal): Promise<UpstreamReply> {
    const native = batchEmbedRequest(call);
    const reply = await this.client.fetch("POST", native.path(this.translation.options.version), native.body, {
      signal,
      ids,
    });
    if (reply.statusCode !== 200) {
      const mapped = toOpenAiError(reply.statusCode, reply.body);
      return { statusCode: mapped.status, contentType: "application/json", body: Buffer.from(mapped.body) };
    }
    const list = toOpenAiEmbeddings(reply.body, call, native.body);
    if (list) {
      const usage = { inputTokens: list.tokens, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };
      this.context.onUsage({ backend: this.settings.name, model: call.model, usage, reported: false });
      return list.reply;
    }
    const error = {
      error: { message: "Google answered without embeddings", type: "server_error", code: "bad_backend_response" },
    };
    return { statusCode: 502, contentType: "application/json", body: Buffer.from(JSON.stringify(error)) };
  }

  protected translator(request: RequestOptions): ResponseTranslator {
    const created = Math.floor(Date.now() / 1000);
    const id = `chatcmpl-${randomUUID()}`;
    const stream = new GeminiStreamTranslator(request, id, created);
    let usage: TokenUsage | undefined;
    return {
      response: (native) => {
        const response = native as GeminiResponse;
        usage = response.usageMetadata ? usageOf(response.usageMetadata) : undefined;
        return JSON.stringify(toChatCompletion(response, id, request.model, created));
      },
      event: (event) => stream.event(event),
      finish: () => stream.finish(),
      error: toOpenAiError,
      usage: () => usage ?? stream.usage(),
    };
  }
}
