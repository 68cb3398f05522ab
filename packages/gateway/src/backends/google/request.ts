import type { ChatBody, ChatMessage } from "../../request/chat.ts";
import {
  imageOf,
  maxTokensOf,
  parseArguments,
  partsOf,
  refuseUnsupported,
  stopSequences,
  TranslationError,
  textOf,
} from "../openai-chat.ts";
import type { NativeRequest } from "../request-translation.ts";
import type { GeminiContent, GeminiFunctionDeclaration, GeminiPart, GeminiRequest } from "./types.ts";

const REFUSED: ReadonlyMap<string, (value: unknown) => boolean> = new Map([
  ["logprobs", (value) => value === true],
  ["top_logprobs", () => true],
  ["audio", () => true],
  ["modalities", (value) => Array.isArray(value) && value.some((modality) => modality !== "text")],
  ["prediction", () => true],
]);

/** This module, for the translation thread to import (see RequestTranslation). */
export const REQUEST_MODULE = import.meta.url;

/** What a google backend's request translation is given besides the request. */
export interface GoogleRequestOptions {
  /** The API version in the path: v1beta or v1. */
  version: string;
}

/** OpenAI chat request → the HTTP request to Gemini (see RequestTranslation; also run on the translation thread). */
export function googleNativeRequest(request: ChatBody, options: GoogleRequestOptions): NativeRequest {
  const stream = request["stream"] === true;
  const model = encodeURIComponent(request.model);
  const path = stream
    ? `/${options.version}/models/${model}:streamGenerateContent?alt=sse`
    : `/${options.version}/models/${model}:generateContent`;
  return { path, body: JSON.stringify(toGeminiRequest(request)), stream };
}

/** OpenAI chat request → Gemini generateContent request. */
export function toGeminiRequest(request: ChatBody): GeminiRequest {
  refuseUnsupported(request, "google", REFUSED);
  const system: string[] = [];
  const contents: GeminiContent[] = [];
  // Gemini answers a function by name, OpenAI by call id: remember which name each id had.
  const callNames = new Map<string, string>();
  request.messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    if (message.role === "system" || message.role === "developer") {
      system.push(textOf(message.content));
      return;
    }
    if (message.role === "function") {
      throw new TranslationError("function messages are not supported by google backends; use tools", `${param}.role`);
    }
    const role = message.role === "assistant" ? "model" : "user";
    const parts =
      message.role === "tool" ? [functionResponse(message, param, callNames)] : partsFor(message, param, callNames);
    if (parts.length === 0) return;
    // Parallel function responses must travel in one content, right after the model's calls.
    const previous = contents[contents.length - 1];
    if (previous?.role === role) previous.parts.push(...parts);
    else contents.push({ role, parts });
  });
  const native: GeminiRequest = { contents };
  if (system.length > 0) native.systemInstruction = { parts: [{ text: system.join("\n\n") }] };
  const config = generationConfig(request);
  if (Object.keys(config).length > 0) native.generationConfig = config;
  const declarations = declarationsOf(request);
  if (declarations) {
    native.tools = [{ functionDeclarations: declarations }];
    const toolConfig = toolConfigOf(request);
    if (toolConfig) native.toolConfig = toolConfig;
  }
  return native;
}

function partsFor(message: ChatMessage, param: string, callNames: Map<string, string>): GeminiPart[] {
  const parts: GeminiPart[] = [];
  partsOf(message.content).forEach((part, index) => {
    const where = `${param}.content[${index}]`;
    if (part["type"] === "text" && typeof part["text"] === "string") {
      if (part["text"] !== "") parts.push({ text: part["text"] });
    } else if (part["type"] === "image_url") {
      const image = imageOf(part, where);
      if (image.kind !== "inline") {
        throw new TranslationError(
          "google backends need images inline, as base64 data: URLs",
          `${where}.image_url.url`,
          "invalid_value",
        );
      }
      parts.push({ inlineData: { mimeType: image.mediaType, data: image.data } });
    } else if (part["type"] !== "refusal") {
      throw new TranslationError(
        `content part type "${String(part["type"])}" is not supported by google backends`,
        where,
      );
    }
  });
  if (message.role === "assistant" && Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((call, index) => {
      const name = call.function?.name;
      callNames.set(call.id, name);
      const args = parseArguments(call.function?.arguments ?? "", `${param}.tool_calls[${index}].function.arguments`);
      parts.push({ functionCall: { name, args } });
    });
  }
  return parts;
}

function functionResponse(message: ChatMessage, param: string, callNames: Map<string, string>): GeminiPart {
  const name = typeof message.tool_call_id === "string" ? callNames.get(message.tool_call_id) : undefined;
  if (name === undefined) {
    throw new TranslationError(
      "a tool message must answer a tool call of an earlier assistant message (tool_call_id)",
      `${param}.tool_call_id`,
      "invalid_value",
    );
  }
  const text = textOf(message.content);
  let response: Record<string, unknown> = { content: text };
  try {
    const parsed: unknown = JSON.parse(text);
    // A JSON object result is given as it is; anything else is wrapped, as Gemini wants an object.
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) response = parsed as Record<string, unknown>;
  } catch {
    // plain text result
  }
  return { functionResponse: { name, response } };
}

function generationConfig(request: ChatBody): NonNullable<GeminiRequest["generationConfig"]> {
  const config: NonNullable<GeminiRequest["generationConfig"]> = {};
  const number = (field: string) => (typeof request[field] === "number" ? (request[field] as number) : undefined);
  const set = <K extends keyof typeof config>(key: K, value: (typeof config)[K] | undefined) => {
    if (value !== undefined) config[key] = value;
  };
  set("temperature", number("temperature"));
  set("topP", number("top_p"));
  set("topK", number("top_k"));
  set("maxOutputTokens", maxTokensOf(request));
  set("presencePenalty", number("presence_penalty"));
  set("frequencyPenalty", number("frequency_penalty"));
  set("seed", number("seed"));
  const n = number("n");
  if (n !== undefined && n !== 1) config.candidateCount = n;
  const stop = stopSequences(request["stop"]);
  if (stop && stop.length > 0) config.stopSequences = stop;
  const format = request["response_format"] as { type?: unknown; json_schema?: { schema?: unknown } } | undefined;
  if (format?.type === "json_object") config.responseMimeType = "application/json";
  else if (format?.type === "json_schema") {
    config.responseMimeType = "application/json";
    if (format.json_schema?.schema !== undefined) config.responseJsonSchema = format.json_schema.schema;
  }
  return config;
}

function declarationsOf(request: ChatBody): GeminiFunctionDeclaration[] | undefined {
  const tools = request["tools"];
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return tools.map((tool, index) => {
    const fn = (tool as { type?: unknown; function?: Record<string, unknown> }).function;
    if ((tool as { type?: unknown }).type !== "function" || !fn || typeof fn["name"] !== "string") {
      throw new TranslationError("only function tools are supported by google backends", `tools[${index}]`);
    }
    const declaration: GeminiFunctionDeclaration = { name: fn["name"] };
    if (typeof fn["description"] === "string") declaration.description = fn["description"];
    if (fn["parameters"] && typeof fn["parameters"] === "object") {
      declaration.parametersJsonSchema = fn["parameters"] as Record<string, unknown>;
    }
    return declaration;
  });
}

function toolConfigOf(request: ChatBody): GeminiRequest["toolConfig"] {
  const choice = request["tool_choice"];
  if (choice === "none") return { functionCallingConfig: { mode: "NONE" } };
  if (choice === "required") return { functionCallingConfig: { mode: "ANY" } };
  if (choice === "auto") return { functionCallingConfig: { mode: "AUTO" } };
  if (choice && typeof choice === "object") {
    const name = (choice as { function?: { name?: unknown } }).function?.name;
    if (typeof name !== "string")
      throw new TranslationError("tool_choice.function.name must be a string", "tool_choice", "invalid_value");
    return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [name] } };
  }
  return undefined;
}
