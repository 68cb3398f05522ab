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
import type {
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicRequest,
  AnthropicTool,
  AnthropicToolChoice,
} from "./types.ts";

/** Fields Anthropic cannot honour; the rest of OpenAI's optional fields are mapped or ignored (see docs/gateway.md). */
const REFUSED: ReadonlyMap<string, (value: unknown) => boolean> = new Map([
  ["n", (value) => value !== 1],
  ["logprobs", (value) => value === true],
  ["top_logprobs", () => true],
  ["audio", () => true],
  ["modalities", (value) => Array.isArray(value) && value.some((modality) => modality !== "text")],
  ["prediction", () => true],
  ["response_format", (value) => !!value && typeof value === "object" && (value as { type?: unknown }).type !== "text"],
]);

/** Anthropic's temperature range is 0–1; OpenAI's is 0–2. */
const MAX_TEMPERATURE = 1;

/** This module, for the translation thread to import (see RequestTranslation). */
export const REQUEST_MODULE = import.meta.url;

/** What an anthropic backend's request translation is given besides the request. */
export interface AnthropicRequestOptions {
  defaultMaxTokens: number;
}

/** OpenAI chat request → the HTTP request to Anthropic (see RequestTranslation; also run on the translation thread). */
export function anthropicNativeRequest(request: ChatBody, options: AnthropicRequestOptions): NativeRequest {
  const native = toAnthropicRequest(request, options.defaultMaxTokens);
  return { path: "/v1/messages", body: JSON.stringify(native), stream: native.stream === true };
}

/** OpenAI chat request → Anthropic Messages request. */
export function toAnthropicRequest(request: ChatBody, defaultMaxTokens: number): AnthropicRequest {
  refuseUnsupported(request, "anthropic", REFUSED);
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  request.messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    if (message.role === "system" || message.role === "developer") {
      system.push(textOf(message.content));
      return;
    }
    if (message.role === "function") {
      throw new TranslationError(
        "function messages are not supported by anthropic backends; use tools",
        `${param}.role`,
      );
    }
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks = message.role === "tool" ? [toolResult(message, param)] : contentBlocks(message, param);
    if (blocks.length === 0) return;
    // Anthropic merges consecutive turns of one role; doing it here keeps tool results in the one user turn that
    // must follow the assistant's tool_use blocks.
    const previous = messages[messages.length - 1];
    if (previous?.role === role) previous.content.push(...blocks);
    else messages.push({ role, content: blocks });
  });
  const native: AnthropicRequest = {
    model: request.model,
    max_tokens: maxTokensOf(request) ?? defaultMaxTokens,
    messages,
  };
  if (system.length > 0) native.system = system.join("\n\n");
  const temperature = request["temperature"];
  if (typeof temperature === "number") native.temperature = Math.min(temperature, MAX_TEMPERATURE);
  if (typeof request["top_p"] === "number") native.top_p = request["top_p"];
  if (typeof request["top_k"] === "number") native.top_k = request["top_k"];
  const stop = stopSequences(request["stop"]);
  if (stop && stop.length > 0) native.stop_sequences = stop;
  if (request["stream"] === true) native.stream = true;
  if (typeof request["user"] === "string") native.metadata = { user_id: request["user"] };
  // Only an Anthropic Messages client's request carries it (inbound/anthropic), as Anthropic defines it.
  if (request["thinking"] !== undefined && request["thinking"] !== null) native.thinking = request["thinking"];
  const tools = toolsOf(request);
  if (tools) {
    native.tools = tools;
    const choice = toolChoiceOf(request);
    if (choice) native.tool_choice = choice;
  }
  return native;
}

function contentBlocks(message: ChatMessage, param: string): AnthropicContentBlock[] {
  const blocks: AnthropicContentBlock[] = [];
  partsOf(message.content).forEach((part, index) => {
    const where = `${param}.content[${index}]`;
    if (part["type"] === "text" && typeof part["text"] === "string") {
      if (part["text"] !== "") blocks.push({ type: "text", text: part["text"] });
    } else if (part["type"] === "image_url") {
      const image = imageOf(part, where);
      blocks.push({
        type: "image",
        source:
          image.kind === "inline"
            ? { type: "base64", media_type: image.mediaType, data: image.data }
            : { type: "url", url: image.url },
      });
    } else if (part["type"] === "refusal") {
      // an assistant's earlier refusal: nothing to send back
    } else {
      throw new TranslationError(
        `content part type "${String(part["type"])}" is not supported by anthropic backends`,
        where,
      );
    }
  });
  if (message.role === "assistant" && Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((call, index) => {
      const where = `${param}.tool_calls[${index}]`;
      blocks.push({
        type: "tool_use",
        id: call.id,
        name: call.function?.name,
        input: parseArguments(call.function?.arguments ?? "", `${where}.function.arguments`),
      });
    });
  }
  return blocks;
}

function toolResult(message: ChatMessage, param: string): AnthropicContentBlock {
  if (typeof message.tool_call_id !== "string" || message.tool_call_id === "") {
    throw new TranslationError(
      "tool messages need tool_call_id",
      `${param}.tool_call_id`,
      "missing_required_parameter",
    );
  }
  return { type: "tool_result", tool_use_id: message.tool_call_id, content: textOf(message.content) };
}

function toolsOf(request: ChatBody): AnthropicTool[] | undefined {
  const tools = request["tools"];
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return tools.map((tool, index) => {
    const fn = (tool as { type?: unknown; function?: Record<string, unknown> }).function;
    if ((tool as { type?: unknown }).type !== "function" || !fn || typeof fn["name"] !== "string") {
      throw new TranslationError("only function tools are supported by anthropic backends", `tools[${index}]`);
    }
    const converted: AnthropicTool = {
      name: fn["name"],
      input_schema: (fn["parameters"] as Record<string, unknown> | undefined) ?? { type: "object", properties: {} },
    };
    if (typeof fn["description"] === "string") converted.description = fn["description"];
    return converted;
  });
}

function toolChoiceOf(request: ChatBody): AnthropicToolChoice | undefined {
  const choice = request["tool_choice"];
  const noParallel = request["parallel_tool_calls"] === false;
  const parallel = noParallel ? { disable_parallel_tool_use: true } : {};
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "any", ...parallel };
  if (choice && typeof choice === "object") {
    const name = (choice as { function?: { name?: unknown } }).function?.name;
    if (typeof name !== "string")
      throw new TranslationError("tool_choice.function.name must be a string", "tool_choice", "invalid_value");
    return { type: "tool", name, ...parallel };
  }
  return noParallel ? { type: "auto", ...parallel } : undefined;
}
