// An Anthropic Messages request (POST /v1/messages) → the pipeline's chat request (OpenAI's chat completion body).
import type { ChatBody, ChatMessage, ContentPart, ToolCall } from "../../request/chat.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import { isObject } from "../json-object.ts";

type Block = Record<string, unknown>;

/** A Messages request as the pipeline runs it on backends that do not speak it (anthropic ones get it as written). */
export interface TranslatedMessages {
  body: ChatBody;
  stream: boolean;
  /**
   * What the translation left out because OpenAI's format cannot carry it (server tools and their result blocks, a
   * document by URL...), each named with where it is: such a request is for anthropic backends only.
   */
  untranslated: string[];
}

const invalid = (message: string, param: string | null = null) => invalidRequest(message, param, "invalid_request");

/**
 * Validates the fields Anthropic requires and translates the request; an ApiError names what is wrong. What is valid
 * but has no counterpart in OpenAI's format is left out of the translation and listed (`untranslated`).
 */
export function fromMessagesRequest(value: unknown, requireMaxTokens = true): TranslatedMessages | ApiError {
  if (!isObject(value)) return invalid("The request body must be a JSON object");
  const model = value["model"];
  if (typeof model !== "string" || model === "") return invalid("model: Field required", "model");
  const maxTokens = value["max_tokens"];
  if (requireMaxTokens && (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1)) {
    return invalid("max_tokens: Field required (a positive integer)", "max_tokens");
  }
  const given = value["messages"];
  if (!Array.isArray(given) || given.length === 0)
    return invalid("messages: at least one message is required", "messages");
  try {
    const untranslated: string[] = [];
    const messages: ChatMessage[] = [];
    const system = systemText(value["system"]);
    if (system !== undefined) messages.push({ role: "system", content: system });
    given.forEach((message, index) => {
      messages.push(...chatMessages(message, `messages.${index}`, untranslated));
    });
    const stream = value["stream"] === true;
    const body: ChatBody = { model, messages };
    if (typeof maxTokens === "number") body.max_tokens = maxTokens;
    copyNumber(value, body, "temperature");
    copyNumber(value, body, "top_p");
    copyNumber(value, body, "top_k");
    const stop = value["stop_sequences"];
    if (Array.isArray(stop) && stop.length > 0) body.stop = stop.filter((item) => typeof item === "string");
    const metadata = value["metadata"];
    if (isObject(metadata) && typeof metadata["user_id"] === "string") body["user"] = metadata["user_id"];
    const tools = toolsOf(value["tools"], untranslated);
    if (tools !== undefined) {
      body.tools = tools;
      Object.assign(body, toolChoiceOf(value["tool_choice"]));
    }
    if (stream) {
      body.stream = true;
      // The closing message_delta carries the output tokens: ask every backend for the usage chunk.
      body["stream_options"] = { include_usage: true };
    }
    return { body, stream, untranslated };
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

function copyNumber(from: Record<string, unknown>, to: ChatBody, field: string): void {
  const value = from[field];
  if (value === undefined || value === null) return;
  if (typeof value !== "number") throw invalid(`${field}: must be a number`, field);
  to[field] = value;
}

/** `system` as a string or text blocks → one system message's text. */
function systemText(system: unknown): string | undefined {
  if (system === undefined || system === null) return undefined;
  if (typeof system === "string") return system === "" ? undefined : system;
  if (!Array.isArray(system)) throw invalid("system: must be a string or an array of text blocks", "system");
  const texts = system.map((block, index) => {
    if (!isObject(block) || block["type"] !== "text" || typeof block["text"] !== "string") {
      throw invalid(`system.${index}: must be a text block`, `system.${index}`);
    }
    return block["text"];
  });
  return texts.length === 0 ? undefined : texts.join("\n\n");
}

/** One Anthropic message → chat messages: a user turn's tool results become tool messages, in their order. */
function chatMessages(message: unknown, path: string, untranslated: string[]): ChatMessage[] {
  if (!isObject(message)) throw invalid(`${path}: must be an object`, path);
  const role = message["role"];
  if (role !== "user" && role !== "assistant")
    throw invalid(`${path}.role: must be "user" or "assistant"`, `${path}.role`);
  const content = message["content"];
  if (typeof content === "string") return [{ role, content }];
  if (!Array.isArray(content))
    throw invalid(`${path}.content: must be a string or an array of blocks`, `${path}.content`);
  return role === "user" ? userMessages(content, path, untranslated) : [assistantMessage(content, path, untranslated)];
}

function userMessages(blocks: unknown[], path: string, untranslated: string[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let parts: ContentPart[] = [];
  const flush = () => {
    if (parts.length > 0) out.push({ role: "user", content: parts });
    parts = [];
  };
  blocks.forEach((block, index) => {
    const where = `${path}.content.${index}`;
    if (!isObject(block)) throw invalid(`${where}: must be a block object`, where);
    if (block["type"] === "tool_result") {
      flush();
      out.push(toolMessage(block, where));
      return;
    }
    const part = contentPart(block, where, untranslated);
    if (part) parts.push(part);
  });
  flush();
  return out;
}

function assistantMessage(blocks: unknown[], path: string, untranslated: string[]): ChatMessage {
  let text = "";
  const calls: ToolCall[] = [];
  blocks.forEach((block, index) => {
    const where = `${path}.content.${index}`;
    if (!isObject(block)) throw invalid(`${where}: must be a block object`, where);
    const type = block["type"];
    if (type === "text" && typeof block["text"] === "string") text += block["text"];
    else if (type === "tool_use") {
      if (typeof block["id"] !== "string" || typeof block["name"] !== "string") {
        throw invalid(`${where}: tool_use needs an id and a name`, where);
      }
      calls.push({
        id: block["id"],
        type: "function",
        function: { name: block["name"], arguments: JSON.stringify(block["input"] ?? {}) },
      });
    } else if (type !== "thinking" && type !== "redacted_thinking") {
      // An earlier answer's reasoning has no place in OpenAI's messages; anything else (a server tool's call and
      // result) cannot be carried over.
      untranslated.push(`${where}: a ${JSON.stringify(type)} block`);
    }
  });
  const message: ChatMessage = { role: "assistant", content: calls.length > 0 && text === "" ? null : text };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

function toolMessage(block: Block, where: string): ChatMessage {
  const id = block["tool_use_id"];
  if (typeof id !== "string" || id === "")
    throw invalid(`${where}.tool_use_id: Field required`, `${where}.tool_use_id`);
  const content = block["content"];
  let text = "";
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    // Tool messages carry text only (OpenAI's); images in a tool result are not carried over.
    for (const part of content) if (isObject(part) && typeof part["text"] === "string") text += part["text"];
  }
  if (block["is_error"] === true) text = `Error: ${text}`;
  return { role: "tool", tool_call_id: id, content: text };
}

/** A user block → an OpenAI content part (undefined for empty text, and for what has no counterpart: listed). */
function contentPart(block: Block, where: string, untranslated: string[]): ContentPart | undefined {
  const type = block["type"];
  if (type === "text") {
    if (typeof block["text"] !== "string") throw invalid(`${where}.text: must be a string`, `${where}.text`);
    return block["text"] === "" ? undefined : { type: "text", text: block["text"] };
  }
  const source = block["source"];
  if (type === "image") {
    if (isObject(source) && source["type"] === "base64" && typeof source["data"] === "string") {
      const url = `data:${String(source["media_type"] ?? "image/png")};base64,${source["data"]}`;
      return { type: "image_url", image_url: { url } };
    }
    if (isObject(source) && source["type"] === "url" && typeof source["url"] === "string") {
      return { type: "image_url", image_url: { url: source["url"] } };
    }
    throw invalid(`${where}.source: an image needs a base64 or url source`, `${where}.source`);
  }
  if (type === "document") {
    const title = typeof block["title"] === "string" ? block["title"] : undefined;
    if (isObject(source) && source["type"] === "text" && typeof source["data"] === "string") {
      return { type: "text", text: title ? `${title}\n\n${source["data"]}` : source["data"] };
    }
    if (isObject(source) && source["type"] === "base64" && typeof source["data"] === "string") {
      const mediaType = String(source["media_type"] ?? "application/pdf");
      const file = { filename: title ?? "document.pdf", file_data: `data:${mediaType};base64,${source["data"]}` };
      return { type: "file", file };
    }
    if (isObject(source) && source["type"] === "content" && Array.isArray(source["content"])) {
      const text = source["content"]
        .map((part) => (isObject(part) && typeof part["text"] === "string" ? part["text"] : ""))
        .join("");
      return { type: "text", text };
    }
    if (isObject(source) && typeof source["type"] === "string") {
      untranslated.push(`${where}: a document by ${source["type"]}`);
      return undefined;
    }
    throw invalid(`${where}.source: a document needs a source`, `${where}.source`);
  }
  if (typeof type !== "string") throw invalid(`${where}.type: Field required`, `${where}.type`);
  untranslated.push(`${where}: a ${JSON.stringify(type)} block`);
  return undefined;
}

function toolsOf(tools: unknown, untranslated: string[]): unknown[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw invalid("tools: must be an array", "tools");
  const custom = tools.filter((tool, index) => {
    const where = `tools.${index}`;
    if (!isObject(tool) || typeof tool["name"] !== "string") throw invalid(`${where}.name: Field required`, where);
    if (tool["type"] === undefined || tool["type"] === "custom") return true;
    // Anthropic's own tools (web search, code execution, bash, the text editor...) are the API's, not functions.
    untranslated.push(`${where}: Anthropic's ${String(tool["type"])} tool`);
    return false;
  });
  if (custom.length === 0) return undefined;
  return custom.map((tool) => {
    const fn: Record<string, unknown> = {
      name: tool["name"],
      parameters: isObject(tool["input_schema"]) ? tool["input_schema"] : { type: "object", properties: {} },
    };
    if (typeof tool["description"] === "string") fn["description"] = tool["description"];
    return { type: "function", function: fn };
  });
}

/** Anthropic's tool_choice → OpenAI's tool_choice and parallel_tool_calls. */
function toolChoiceOf(choice: unknown): Record<string, unknown> {
  if (!isObject(choice)) return {};
  const out: Record<string, unknown> = {};
  if (choice["disable_parallel_tool_use"] === true) out["parallel_tool_calls"] = false;
  const type = choice["type"];
  if (type === "auto") out["tool_choice"] = "auto";
  else if (type === "any") out["tool_choice"] = "required";
  else if (type === "none") out["tool_choice"] = "none";
  else if (type === "tool") {
    if (typeof choice["name"] !== "string") throw invalid("tool_choice.name: Field required", "tool_choice.name");
    out["tool_choice"] = { type: "function", function: { name: choice["name"] } };
  } else throw invalid(`tool_choice.type: ${JSON.stringify(type)} is not one of auto, any, tool, none`, "tool_choice");
  return out;
}
