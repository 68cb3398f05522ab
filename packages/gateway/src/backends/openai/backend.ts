import type { BackendSettings } from "../../config/types.ts";
import type { ChatBody } from "../../request/chat.ts";
import { type BackendContext, optionsOf } from "../module.ts";
import { tappedNativeChat } from "../native-calls.ts";
import { OpenAICompatibleBackend } from "../openai-compatible/backend.ts";
import type { CallIds, EmbeddingsCall, NativeApis, ParsedChat, UpstreamReply } from "../types.ts";
import type { ResponseSink, UpstreamCall } from "../upstream-call.ts";
import { ResponsesUsageReader } from "./native-responses.ts";
import { openAiOptions } from "./options.ts";
import { UsageObserver } from "./usage-observer.ts";

function authHeaders(settings: BackendSettings): Record<string, string> {
  const options = optionsOf(settings, openAiOptions);
  const headers: Record<string, string> = {};
  if (settings.apiKey) headers["authorization"] = `Bearer ${settings.apiKey}`;
  if (options.organization) headers["openai-organization"] = options.organization;
  if (options.project) headers["openai-project"] = options.project;
  return headers;
}

/**
 * OpenAI's cloud API. Requests and answers pass through byte for byte; the answer is only read on the side, for the
 * tokens it used (the `usage` OpenAI reports, or a count of the streamed text when a stream carries none).
 */
export class OpenAiCloudBackend extends OpenAICompatibleBackend {
  constructor(settings: BackendSettings, context: BackendContext) {
    super(settings, context, { authHeaders: authHeaders(settings) });
  }

  /**
   * OpenAI's Responses as its clients wrote them (the gateway's POST /v1/responses, when the client keeps no state
   * at the gateway): reasoning items with their encrypted content, hosted tools and the models only that API serves
   * reach OpenAI, and its answer comes back unchanged.
   */
  override readonly natives: NativeApis = {
    "openai-responses": {
      chat: tappedNativeChat(this.client, this.context, this.settings.name, () => new ResponsesUsageReader()),
    },
  };

  override chat(body: string | Buffer, ids: CallIds, sink: ResponseSink, parsed?: ParsedChat): UpstreamCall {
    const request = parsed?.body ?? parseBody(body);
    const model = parsed?.model ?? (typeof request.model === "string" ? request.model : "");
    const observer = new UsageObserver({
      out: sink,
      stream: request.stream === true,
      countPrompt: () => this.context.tokens.prompt(request),
      countText: (text) => this.context.tokens.text(text),
      onUsage: (usage, reported) => this.context.onUsage({ backend: this.settings.name, model, usage, reported }),
    });
    return this.client.dispatch("/v1/chat/completions", body, ids, observer);
  }

  override async embeddings(call: EmbeddingsCall, ids: CallIds, signal: AbortSignal): Promise<UpstreamReply> {
    const reply = await super.embeddings(call, ids, signal);
    if (reply.statusCode === 200) {
      try {
        const tokens = (JSON.parse(reply.body.toString("utf8")) as { usage?: { prompt_tokens?: unknown } }).usage
          ?.prompt_tokens;
        if (typeof tokens === "number") {
          const usage = { inputTokens: tokens, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };
          this.context.onUsage({ backend: this.settings.name, model: call.model, usage, reported: true });
        }
      } catch {
        // relayed as it is; nothing to count
      }
    }
    return reply;
  }
}

/** The body dispatch validated; an unparsable one (not expected) is only counted as 0 tokens. */
function parseBody(body: string | Buffer): ChatBody {
  try {
    return JSON.parse(typeof body === "string" ? body : body.toString("utf8")) as ChatBody;
  } catch {
    return { model: "", messages: [] };
  }
}
