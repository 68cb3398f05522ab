// Ollama's POST /api/chat and /api/generate bodies → the pipeline's chat request (OpenAI's chat completion body).
import type { ChatBody, ChatMessage, ContentPart, ToolCall } from "../../request/chat.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import { isObject } from "../json-object.ts";

export interface TranslatedOllama {
  body: ChatBody;
  /** Ollama streams unless told `stream: false`. */
  stream: boolean;
  /**
   * What the request asks that only an ollama backend does (the first such thing): the translation would answer
   * something else, so the request goes to ollama backends only.
   */
  nativeOnly?: string | undefined;
}

class Refusal extends Error {}

/** POST /api/chat. */
export function fromOllamaChat(value: unknown): TranslatedOllama | ApiError {
  if (!isObject(value)) return invalidRequest("invalid request body: expected a JSON object");
  const model = value["model"];
  if (typeof model !== "string" || model === "") return invalidRequest("model is required", "model");
  const given = value["messages"] ?? [];
  if (!Array.isArray(given)) return invalidRequest("messages must be an array", "messages");
  try {
    const messages = chatMessages(given);
    if (messages.length === 0) return invalidRequest("messages must contain at least one message", "messages");
    return finish(value, { model, messages });
  } catch (error) {
    if (error instanceof Refusal) return invalidRequest(error.message);
    throw error;
  }
}

/** POST /api/generate with a prompt (an empty prompt only loads the model: the route answers it). */
export function fromOllamaGenerate(value: unknown): TranslatedOllama | ApiError {
  if (!isObject(value)) return invalidRequest("invalid request body: expected a JSON object");
  const model = value["model"];
  if (typeof model !== "string" || model === "") return invalidRequest("model is required", "model");
  const prompt = value["prompt"];
  if (typeof prompt !== "string") return invalidRequest("prompt must be a string", "prompt");
  const messages: ChatMessage[] = [];
  if (typeof value["system"] === "string" && value["system"] !== "") {
    messages.push({ role: "system", content: value["system"] });
  }
  try {
    messages.push({ role: "user", content: withImages(prompt, value["images"]) });
  } catch (error) {
    if (error instanceof Refusal) return invalidRequest(error.message, "images");
    throw error;
  }
  const translated = finish(value, { model, messages });
  if (!(translated instanceof ApiError)) translated.nativeOnly = onlyOllama(value);
  return translated;
}

/**
 * Generate's fields with no counterpart in a chat request, each of which changes the answer: fill-in-the-middle
 * (code completion: Continue, Twinny...), a prompt without the model's template, or the request's own template.
 */
function onlyOllama(value: Record<string, unknown>): string | undefined {
  if (typeof value["suffix"] === "string" && value["suffix"] !== "") return "suffix (fill-in-the-middle)";
  if (value["raw"] === true) return "raw (a prompt without the model's template)";
  if (typeof value["template"] === "string" && value["template"] !== "") return "template (the request's own)";
  return undefined;
}

/** The options, format, tools and stream flag both endpoints share. */
function finish(value: Record<string, unknown>, body: ChatBody): TranslatedOllama | ApiError {
  const options = value["options"];
  if (options !== undefined && options !== null && !isObject(options)) {
    return invalidRequest("options must be an object", "options");
  }
  if (isObject(options)) {
    for (const [from, to] of OPTIONS) {
      if (typeof options[from] === "number") body[to] = options[from];
    }
    // -1 (until the context is full) and -2 (fill the context) have no OpenAI counterpart: no limit is sent.
    if (typeof options["num_predict"] === "number" && options["num_predict"] > 0)
      body.max_tokens = options["num_predict"];
    const stop = options["stop"];
    if (typeof stop === "string" || (Array.isArray(stop) && stop.every((item) => typeof item === "string"))) {
      body.stop = stop;
    }
  }
  const format = value["format"];
  if (format === "json") body.response_format = { type: "json_object" };
  else if (isObject(format))
    body.response_format = { type: "json_schema", json_schema: { name: "response", schema: format } };
  const tools = value["tools"];
  if (Array.isArray(tools) && tools.length > 0) body.tools = tools;
  const stream = value["stream"] !== false;
  if (stream) {
    body.stream = true;
    body["stream_options"] = { include_usage: true };
  }
  return { body, stream };
}

/** Ollama's option → OpenAI's field, for the numbers that mean the same. */
const OPTIONS: ReadonlyArray<[string, string]> = [
  ["temperature", "temperature"],
  ["top_p", "top_p"],
  ["top_k", "top_k"],
  ["seed", "seed"],
  ["frequency_penalty", "frequency_penalty"],
  ["presence_penalty", "presence_penalty"],
];

/** Ollama's messages → OpenAI's: images become image parts, tool calls get ids, tool results answer them. */
function chatMessages(given: unknown[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  /** Calls not answered yet, in order: a tool message answers the first one of its tool_name (or the first). */
  const open: ToolCall[] = [];
  let counter = 0;
  given.forEach((message, index) => {
    if (!isObject(message) || typeof message["role"] !== "string") {
      throw new Refusal(`invalid message format: messages[${index}] needs a role`);
    }
    const role = message["role"];
    const content = typeof message["content"] === "string" ? message["content"] : "";
    if (role === "tool") {
      const name = message["tool_name"];
      const at = open.findIndex((call) => typeof name !== "string" || call.function.name === name);
      const call = at >= 0 ? open.splice(at, 1)[0] : undefined;
      messages.push({ role: "tool", tool_call_id: call?.id ?? `call_${counter++}`, content });
      return;
    }
    if (role !== "system" && role !== "user" && role !== "assistant") {
      throw new Refusal(
        `invalid message format: messages[${index}].role "${role}" is not system, user, assistant or tool`,
      );
    }
    const out: ChatMessage = { role, content: role === "user" ? withImages(content, message["images"]) : content };
    const calls = message["tool_calls"];
    if (role === "assistant" && Array.isArray(calls) && calls.length > 0) {
      out.tool_calls = calls.map((call) => {
        const fn = isObject(call) && isObject(call["function"]) ? call["function"] : {};
        const id = isObject(call) && typeof call["id"] === "string" ? call["id"] : `call_${counter++}`;
        const args = fn["arguments"];
        const converted: ToolCall = {
          id,
          type: "function",
          function: {
            name: String(fn["name"] ?? ""),
            arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
          },
        };
        open.push(converted);
        return converted;
      });
      if (content === "") out.content = null;
    }
    messages.push(out);
  });
  return messages;
}

/** A text with Ollama's base64 images → OpenAI content parts (the text alone when there are none). */
function withImages(text: string, images: unknown): string | ContentPart[] {
  if (images === undefined || images === null) return text;
  if (!Array.isArray(images) || images.some((image) => typeof image !== "string")) {
    throw new Refusal("images must be an array of base64 strings");
  }
  if (images.length === 0) return text;
  const parts: ContentPart[] = text === "" ? [] : [{ type: "text", text }];
  for (const image of images as string[]) {
    parts.push({ type: "image_url", image_url: { url: `data:${mediaTypeOf(image)};base64,${image}` } });
  }
  return parts;
}

/** The image type from the first bytes of its base64 (Ollama sends no media type). */
function mediaTypeOf(base64: string): string {
  if (base64.startsWith("/9j/")) return "image/jpeg";
  if (base64.startsWith("R0lGOD")) return "image/gif";
  if (base64.startsWith("UklGR")) return "image/webp";
  return "image/png";
}
