import type { BackendSettings } from "../../config/types.ts";
import { type BackendContext, optionsOf } from "../module.ts";
import { tappedNativeChat, wholeNativeCall } from "../native-calls.ts";
import type { RequestOptions, RequestTranslation } from "../request-translation.ts";
import { TranslatedBackend } from "../translated-backend.ts";
import type { ResponseTranslator } from "../translated-call.ts";
import type { ModelInfo, NativeApis } from "../types.ts";
import { toOpenAiError } from "./errors.ts";
import { AnthropicUsageReader } from "./native-messages.ts";
import { anthropicOptions } from "./options.ts";
import { type AnthropicRequestOptions, anthropicNativeRequest, REQUEST_MODULE } from "./request.ts";
import { toChatCompletion, usageOf } from "./response.ts";
import { AnthropicStreamTranslator } from "./stream.ts";
import type { AnthropicResponse } from "./types.ts";

const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";
/** max_tokens when the client sends none: Anthropic requires the field, OpenAI does not. */
const DEFAULT_MAX_TOKENS = 4096;
/** Every current Claude model has a 200k-token context window. */
const CLAUDE_CONTEXT = 200_000;

/** Anthropic's Messages API behind OpenAI's chat completions. */
export class AnthropicBackend extends TranslatedBackend {
  protected readonly translation: RequestTranslation<AnthropicRequestOptions>;

  constructor(settings: BackendSettings, context: BackendContext) {
    const options = optionsOf(settings, anthropicOptions);
    super(settings, context, {
      "x-api-key": settings.apiKey ?? "",
      "anthropic-version": options.anthropic_version ?? DEFAULT_ANTHROPIC_VERSION,
    });
    this.translation = {
      translate: anthropicNativeRequest,
      module: REQUEST_MODULE,
      exportName: "anthropicNativeRequest",
      options: { defaultMaxTokens: options.default_max_tokens ?? DEFAULT_MAX_TOKENS },
    };
  }

  /**
   * Anthropic's Messages as its clients wrote them (the gateway's POST /v1/messages): thinking blocks and their
   * signatures, cache points and whatever the API adds reach it and come back unchanged, which a round trip through
   * OpenAI's format would lose (a tool-use turn with thinking on is then refused by the API).
   */
  readonly natives: NativeApis = {
    "anthropic-messages": {
      chat: tappedNativeChat(this.client, this.context, this.settings.name, () => new AnthropicUsageReader()),
      call: wholeNativeCall(this.client),
    },
  };

  /** GET /v1/models: free, unlike a 1-token message (Nexus probes with a paid call). */
  async probe(timeoutMs: number, stop: AbortSignal): Promise<ModelInfo[]> {
    const list = (await this.client.getJson("/v1/models?limit=1000", timeoutMs, stop)) as { data?: unknown } | null;
    if (!list || !Array.isArray(list.data)) throw new Error("GET /v1/models answered without a data array");
    const models: ModelInfo[] = [];
    for (const entry of list.data as Array<{ id?: unknown; created_at?: unknown }>) {
      if (typeof entry?.id !== "string" || entry.id === "") continue;
      const created = typeof entry.created_at === "string" ? Date.parse(entry.created_at) : Number.NaN;
      models.push({
        id: entry.id,
        contextLength: CLAUDE_CONTEXT,
        // No JSON mode: routing keeps response_format requests away from Claude.
        capabilities: new Set(["completion", "vision", "tools"]),
        created: Number.isNaN(created) ? undefined : Math.floor(created / 1000),
      });
    }
    return models;
  }

  protected translator(request: RequestOptions): ResponseTranslator {
    const created = Math.floor(Date.now() / 1000);
    const stream = new AnthropicStreamTranslator(request, created);
    let usage: ReturnType<ResponseTranslator["usage"]>;
    return {
      response: (native) => {
        const completion = toChatCompletion(native as AnthropicResponse, created);
        usage = usageOf((native as AnthropicResponse).usage);
        return JSON.stringify(completion);
      },
      event: (event) => stream.event(event),
      finish: () => stream.finish(),
      error: toOpenAiError,
      usage: () => usage ?? stream.usage(),
    };
  }
}
