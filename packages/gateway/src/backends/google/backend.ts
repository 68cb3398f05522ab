import { randomUUID } from "node:crypto";
import type { BackendSettings } from "../../config/types.ts";
import { type BackendContext, optionsOf } from "../module.ts";
import type { RequestOptions, RequestTranslation } from "../request-translation.ts";
import { TranslatedBackend } from "../translated-backend.ts";
import type { ResponseTranslator } from "../translated-call.ts";
import type { ModelInfo } from "../types.ts";
import type { TokenUsage } from "../usage.ts";
import { toOpenAiError } from "./errors.ts";
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

  /** GET /{version}/models: free. Only models that generate content are listed (embedding models are not served). */
  async probe(timeoutMs: number): Promise<ModelInfo[]> {
    const { version } = this.translation.options;
    const list = (await this.client.getJson(`/${version}/models?pageSize=1000`, timeoutMs)) as {
      models?: unknown;
    } | null;
    if (!list || !Array.isArray(list.models)) throw new Error(`GET /${version}/models answered without models`);
    const models: ModelInfo[] = [];
    for (const entry of list.models as Array<Record<string, unknown>>) {
      const name = entry?.["name"];
      const methods = entry?.["supportedGenerationMethods"];
      if (typeof name !== "string" || !Array.isArray(methods) || !methods.includes("generateContent")) continue;
      const limit = entry["inputTokenLimit"];
      models.push({
        id: name.replace(/^models\//, ""),
        contextLength: typeof limit === "number" && limit > 0 ? limit : undefined,
        capabilities: /^gemini/.test(name.replace(/^models\//, ""))
          ? new Set(["completion", "vision", "tools", "json"])
          : new Set(["completion"]),
      });
    }
    return models;
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
