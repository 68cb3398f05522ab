// A Gemini generateContent request (POST /v1beta/models/{model}:generateContent) → the pipeline's chat request
// (OpenAI's chat completion body). google backends get the request as written (http/routes/gemini.ts).
import type { ChatBody, ChatMessage, ContentPart, ToolCall } from "../../request/chat.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import { isObject } from "../json-object.ts";

type Json = Record<string, unknown>;

/** A generateContent request as the pipeline runs it on backends that do not speak it. */
export interface TranslatedGemini {
  body: ChatBody;
  /**
   * What the translation left out because OpenAI's format cannot carry it (Google's own tools, files by URI, cached
   * content...), each named with where it is: such a request is for google backends only.
   */
  untranslated: string[];
}

/** A 400 in the words of the request translations (its `code`: invalid_request). */
export const invalid = (message: string, param: string | null = null) =>
  invalidRequest(message, param, "invalid_request");

/** Fields of the request itself that only Google acts on. */
const GOOGLE_ONLY_FIELDS = ["cachedContent"];
/** Tool kinds that are Google's own (search, code execution, URL context, maps...), not functions. */
const FUNCTION_TOOL = "functionDeclarations";

/**
 * Validates what Gemini requires and translates the request for `model`; an ApiError names what is wrong. Valid
 * things that have no counterpart in OpenAI's format are left out of the translation and listed (`untranslated`).
 * Calls and responses pair by name in Gemini (ids are optional): a call without an id gets one, and the response
 * that follows it takes the same.
 */
export function fromGenerateContent(value: unknown, model: string, stream: boolean): TranslatedGemini | ApiError {
  if (!isObject(value)) return invalid("The request body must be a JSON object");
  const contents = value["contents"];
  if (!Array.isArray(contents) || contents.length === 0) {
    return invalid("contents: at least one content is required", "contents");
  }
  try {
    const untranslated: string[] = [];
    for (const field of GOOGLE_ONLY_FIELDS) if (value[field] !== undefined) untranslated.push(field);
    const messages: ChatMessage[] = [];
    const system = systemText(value["systemInstruction"]);
    if (system !== undefined) messages.push({ role: "system", content: system });
    const calls = new CallIds();
    contents.forEach((content, index) => {
      messages.push(...chatMessages(content, `contents.${index}`, calls, untranslated));
    });
    const body: ChatBody = { model, messages };
    generationConfig(value["generationConfig"], body);
    const tools = toolsOf(value["tools"], untranslated);
    if (tools !== undefined) {
      body.tools = tools;
      Object.assign(body, toolChoiceOf(value["toolConfig"]));
    }
    if (stream) {
      body.stream = true;
      // The last chunk carries usageMetadata: ask every backend for the usage chunk.
      body["stream_options"] = { include_usage: true };
    }
    return { body, untranslated };
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

/** Call ids by function name, for the responses that name a call only by its function. */
class CallIds {
  readonly #pending = new Map<string, string[]>();
  #made = 0;

  call(name: string, id: unknown): string {
    const given = typeof id === "string" && id !== "" ? id : `call_gemini_${++this.#made}`;
    const queue = this.#pending.get(name) ?? [];
    queue.push(given);
    this.#pending.set(name, queue);
    return given;
  }

  response(name: string, id: unknown): string {
    const queue = this.#pending.get(name);
    if (typeof id === "string" && id !== "") {
      const at = queue?.indexOf(id) ?? -1;
      if (at >= 0) queue!.splice(at, 1);
      return id;
    }
    return queue?.shift() ?? `call_gemini_${++this.#made}`;
  }
}

function systemText(system: unknown): string | undefined {
  if (system === undefined || system === null) return undefined;
  if (!isObject(system) || !Array.isArray(system["parts"])) {
    throw invalid("systemInstruction: must be a content with parts", "systemInstruction");
  }
  const text = system["parts"]
    .map((part, index) => {
      if (!isObject(part) || typeof part["text"] !== "string") {
        throw invalid(`systemInstruction.parts.${index}: must be a text part`, `systemInstruction.parts.${index}`);
      }
      return part["text"];
    })
    .join("\n\n");
  return text === "" ? undefined : text;
}

/** One content → chat messages: a user turn's function responses become tool messages, in their order. */
function chatMessages(content: unknown, path: string, calls: CallIds, untranslated: string[]): ChatMessage[] {
  if (!isObject(content)) throw invalid(`${path}: must be an object`, path);
  const role = content["role"] ?? "user";
  if (role !== "user" && role !== "model") throw invalid(`${path}.role: must be "user" or "model"`, `${path}.role`);
  const parts = content["parts"];
  if (!Array.isArray(parts) || parts.length === 0) {
    throw invalid(`${path}.parts: at least one part is required`, `${path}.parts`);
  }
  parts.forEach((part, index) => {
    if (!isObject(part)) throw invalid(`${path}.parts.${index}: must be an object`, `${path}.parts.${index}`);
  });
  return role === "model"
    ? [modelMessage(parts as Json[], path, calls, untranslated)]
    : userMessages(parts as Json[], path, calls, untranslated);
}

function userMessages(parts: Json[], path: string, calls: CallIds, untranslated: string[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let content: ContentPart[] = [];
  const flush = () => {
    if (content.length > 0) out.push({ role: "user", content });
    content = [];
  };
  parts.forEach((part, index) => {
    const where = `${path}.parts.${index}`;
    const response = part["functionResponse"];
    if (response !== undefined) {
      flush();
      out.push(toolMessage(response, where, calls));
      return;
    }
    const translated = contentPart(part, where, untranslated);
    if (translated) content.push(translated);
  });
  flush();
  return out;
}

function modelMessage(parts: Json[], path: string, calls: CallIds, untranslated: string[]): ChatMessage {
  let text = "";
  const toolCalls: ToolCall[] = [];
  parts.forEach((part, index) => {
    const where = `${path}.parts.${index}`;
    // An earlier answer's thoughts (and their signatures) have no place in OpenAI's messages.
    if (part["thought"] === true) return;
    if (typeof part["text"] === "string") text += part["text"];
    else if (part["functionCall"] !== undefined) {
      const call = part["functionCall"];
      if (!isObject(call) || typeof call["name"] !== "string" || call["name"] === "") {
        throw invalid(`${where}.functionCall.name: Field required`, `${where}.functionCall.name`);
      }
      const args = call["args"] ?? {};
      if (!isObject(args)) throw invalid(`${where}.functionCall.args: must be an object`, `${where}.functionCall.args`);
      toolCalls.push({
        id: calls.call(call["name"], call["id"]),
        type: "function",
        function: { name: call["name"], arguments: JSON.stringify(args) },
      });
    } else if (part["thoughtSignature"] === undefined) {
      untranslated.push(`${where}: a ${partKind(part)} part from the model`);
    }
  });
  const message: ChatMessage = {
    role: "assistant",
    content: toolCalls.length > 0 && text === "" ? null : text,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

function toolMessage(response: unknown, where: string, calls: CallIds): ChatMessage {
  if (!isObject(response) || typeof response["name"] !== "string" || response["name"] === "") {
    throw invalid(`${where}.functionResponse.name: Field required`, `${where}.functionResponse.name`);
  }
  const result = response["response"];
  if (!isObject(result)) {
    throw invalid(`${where}.functionResponse.response: must be an object`, `${where}.functionResponse.response`);
  }
  return {
    role: "tool",
    tool_call_id: calls.response(response["name"], response["id"]),
    content: JSON.stringify(result),
  };
}

/** A user part → an OpenAI content part (undefined for empty text, and for what has no counterpart: listed). */
function contentPart(part: Json, where: string, untranslated: string[]): ContentPart | undefined {
  if (part["text"] !== undefined) {
    if (typeof part["text"] !== "string") throw invalid(`${where}.text: must be a string`, `${where}.text`);
    return part["text"] === "" ? undefined : { type: "text", text: part["text"] };
  }
  const inline = part["inlineData"];
  if (inline !== undefined) {
    if (!isObject(inline) || typeof inline["data"] !== "string" || typeof inline["mimeType"] !== "string") {
      throw invalid(`${where}.inlineData: needs mimeType and data (base64)`, `${where}.inlineData`);
    }
    const url = `data:${inline["mimeType"]};base64,${inline["data"]}`;
    if (inline["mimeType"].startsWith("image/")) return { type: "image_url", image_url: { url } };
    return { type: "file", file: { filename: "file", file_data: url } };
  }
  if (part["fileData"] !== undefined) {
    // A file in Google's file store, or a URI only Google fetches.
    untranslated.push(`${where}: a fileData part`);
    return undefined;
  }
  untranslated.push(`${where}: a ${partKind(part)} part`);
  return undefined;
}

function partKind(part: Json): string {
  return JSON.stringify(Object.keys(part).find((key) => key !== "thoughtSignature") ?? "empty");
}

/** generationConfig → the chat body's sampling, length, stop and JSON settings. */
function generationConfig(config: unknown, body: ChatBody): void {
  if (config === undefined || config === null) return;
  if (!isObject(config)) throw invalid("generationConfig: must be an object", "generationConfig");
  const number = (field: string, to: string) => {
    const value = config[field];
    if (value === undefined || value === null) return;
    if (typeof value !== "number") throw invalid(`generationConfig.${field}: must be a number`, field);
    body[to] = value;
  };
  number("temperature", "temperature");
  number("topP", "top_p");
  number("topK", "top_k");
  number("maxOutputTokens", "max_tokens");
  number("presencePenalty", "presence_penalty");
  number("frequencyPenalty", "frequency_penalty");
  number("seed", "seed");
  number("candidateCount", "n");
  const stop = config["stopSequences"];
  if (Array.isArray(stop) && stop.length > 0) body.stop = stop.filter((item) => typeof item === "string");
  const schema = config["responseJsonSchema"] ?? config["responseSchema"];
  if (isObject(schema)) {
    body["response_format"] = { type: "json_schema", json_schema: { name: "response", schema } };
  } else if (config["responseMimeType"] === "application/json") {
    body["response_format"] = { type: "json_object" };
  }
  // thinkingConfig is left out: it is advice to Gemini's thinking models, and OpenAI's reasoning_effort is refused
  // by the models that do not reason.
}

function toolsOf(tools: unknown, untranslated: string[]): unknown[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw invalid("tools: must be an array", "tools");
  const functions: unknown[] = [];
  tools.forEach((tool, index) => {
    const where = `tools.${index}`;
    if (!isObject(tool)) throw invalid(`${where}: must be an object`, where);
    for (const kind of Object.keys(tool)) {
      if (kind !== FUNCTION_TOOL) untranslated.push(`${where}: Google's ${kind} tool`);
    }
    const declarations = tool[FUNCTION_TOOL];
    if (declarations === undefined) return;
    if (!Array.isArray(declarations)) throw invalid(`${where}.${FUNCTION_TOOL}: must be an array`, where);
    declarations.forEach((declaration, at) => {
      const path = `${where}.${FUNCTION_TOOL}.${at}`;
      if (!isObject(declaration) || typeof declaration["name"] !== "string" || declaration["name"] === "") {
        throw invalid(`${path}.name: Field required`, path);
      }
      const schema = declaration["parametersJsonSchema"] ?? declaration["parameters"];
      const fn: Json = {
        name: declaration["name"],
        parameters: isObject(schema) ? lowerTypes(schema) : { type: "object", properties: {} },
      };
      if (typeof declaration["description"] === "string") fn["description"] = declaration["description"];
      functions.push({ type: "function", function: fn });
    });
  });
  return functions.length === 0 ? undefined : functions;
}

/**
 * Gemini's OpenAPI-subset schemas name types in capitals (STRING, OBJECT...); JSON Schema, which OpenAI's tools take,
 * in lower case. Only `type` values are changed, at any depth.
 */
function lowerTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(lowerTypes);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === "type" && typeof value === "string" ? value.toLowerCase() : lowerTypes(value);
  }
  return out;
}

/** toolConfig.functionCallingConfig → OpenAI's tool_choice. */
function toolChoiceOf(toolConfig: unknown): Json {
  if (!isObject(toolConfig)) return {};
  const config = toolConfig["functionCallingConfig"];
  if (!isObject(config)) return {};
  const mode = config["mode"] ?? "AUTO";
  const allowed = config["allowedFunctionNames"];
  if (mode === "AUTO" || mode === "VALIDATED") return { tool_choice: "auto" };
  if (mode === "NONE") return { tool_choice: "none" };
  if (mode === "ANY") {
    if (Array.isArray(allowed) && allowed.length === 1 && typeof allowed[0] === "string") {
      return { tool_choice: { type: "function", function: { name: allowed[0] } } };
    }
    return { tool_choice: "required" };
  }
  throw invalid(
    `toolConfig.functionCallingConfig.mode: ${JSON.stringify(mode)} is not one of AUTO, ANY, NONE, VALIDATED`,
    "toolConfig",
  );
}
