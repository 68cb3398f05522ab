// OpenAI chat-completion shapes and helpers shared by the translating backends (anthropic, google).
import type { ChatBody, ToolCall } from "../request/chat.ts";

export type { ToolCall };

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

/** A request the translation cannot carry to the provider: the client's fault, answered 400 without calling it. */
export class TranslationError extends Error {
  constructor(
    message: string,
    readonly param: string | null,
    readonly code = "unsupported_parameter",
  ) {
    super(message);
  }

  envelope(): unknown {
    return { error: { message: this.message, type: "invalid_request_error", param: this.param, code: this.code } };
  }
}

/** The text of a message's content: a string as is, the text parts of an array joined. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string") {
      text += (part as { text: string }).text;
    }
  }
  return text;
}

/** A content array's parts, or one text part for a string; [] for null/absent content. */
export function partsOf(content: unknown): Record<string, unknown>[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter((part): part is Record<string, unknown> => !!part && typeof part === "object");
}

export type ImageSource = { kind: "inline"; mediaType: string; data: string } | { kind: "url"; url: string };

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s;

/** An `image_url` part's image: inline base64 from a data: URL, or a remote URL. */
export function imageOf(part: Record<string, unknown>, param: string): ImageSource {
  const image = part["image_url"];
  const url = typeof image === "string" ? image : (image as { url?: unknown } | undefined)?.url;
  if (typeof url !== "string" || url === "")
    throw new TranslationError("image_url.url must be a string", param, "invalid_value");
  const inline = DATA_URL.exec(url);
  if (inline) return { kind: "inline", mediaType: inline[1]!, data: inline[2]! };
  if (/^https?:\/\//i.test(url)) return { kind: "url", url };
  throw new TranslationError("image_url.url must be an http(s) URL or a base64 data: URL", param, "invalid_value");
}

/** A tool call's `arguments` as the object providers want. */
export function parseArguments(text: string, param: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new TranslationError("tool call arguments must be a JSON object", param, "invalid_value");
}

/** `stop` as a list. */
export function stopSequences(stop: unknown): string[] | undefined {
  if (typeof stop === "string") return [stop];
  if (Array.isArray(stop)) return stop.filter((item): item is string => typeof item === "string");
  return undefined;
}

/** `max_completion_tokens` (the newer name) or `max_tokens`. */
export function maxTokensOf(request: ChatBody): number | undefined {
  const value = request["max_completion_tokens"] ?? request["max_tokens"];
  return typeof value === "number" ? value : undefined;
}

/** Refuses fields whose meaning the provider cannot honour (silently dropping them would change the answer). */
export function refuseUnsupported(
  request: ChatBody,
  provider: string,
  refused: ReadonlyMap<string, (value: unknown) => boolean>,
): void {
  for (const [field, applies] of refused) {
    const value = request[field];
    if (value !== undefined && value !== null && applies(value)) {
      throw new TranslationError(`${field} is not supported by ${provider} backends`, field);
    }
  }
}

const CHUNK_PREFIXES = new WeakMap<object, string>();

/**
 * One `chat.completion.chunk` SSE event. Only the delta is serialised per chunk; the fixed part (id, created, model)
 * is serialised once per stream, since this runs for every token.
 */
export function chunkEvent(
  base: { id: string; created: number; model: string },
  delta: Record<string, unknown>,
  finishReason: FinishReason | null,
  withUsageNull: boolean,
  index = 0,
): string {
  let prefix = CHUNK_PREFIXES.get(base);
  if (prefix === undefined) {
    prefix = `data: {"id":${JSON.stringify(base.id)},"object":"chat.completion.chunk","created":${base.created},"model":${JSON.stringify(base.model)},"choices":[{"index":`;
    CHUNK_PREFIXES.set(base, prefix);
  }
  const finish = finishReason === null ? "null" : `"${finishReason}"`;
  // OpenAI sends "usage": null on every chunk when include_usage is set, then the usage chunk.
  const usage = withUsageNull ? ',"usage":null' : "";
  return `${prefix}${index},"delta":${JSON.stringify(delta)},"logprobs":null,"finish_reason":${finish}}]${usage}}\n\n`;
}

/** The closing usage chunk of `stream_options.include_usage`. */
export function usageEvent(
  base: { id: string; created: number; model: string },
  usage: Record<string, unknown>,
): string {
  const chunk = {
    id: base.id,
    object: "chat.completion.chunk",
    created: base.created,
    model: base.model,
    choices: [],
    usage,
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

export const DONE_EVENT = "data: [DONE]\n\n";

/** Whether the client asked for the usage chunk. */
export function wantsUsage(request: Record<string, unknown>): boolean {
  const options = request["stream_options"];
  return !!options && typeof options === "object" && (options as { include_usage?: unknown }).include_usage === true;
}

/** OpenAI's error `type` for a status. */
export function errorTypeFor(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** OpenAI's error envelope as JSON text. */
export function errorEnvelope(message: string, type: string, code: string | null): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}
