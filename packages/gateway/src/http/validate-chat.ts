import type { ChatBody } from "../request/chat.ts";
import { type ApiError, invalidRequest } from "../request/errors.ts";
import { isText, LongText } from "../request/long-text.ts";

/** OpenAI accepts 4 stop sequences; backends match every one against every token, so a long list costs them. */
const MAX_STOP_SEQUENCES = 16;

const ROLES = new Set(["system", "user", "assistant", "tool", "developer", "function"]);

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** The problem with message `index`'s content, if any (its path is built only then: most messages have none). */
function validateContent(
  content: unknown,
  index: number,
  role: string,
  message: Record<string, unknown>,
): ApiError | undefined {
  if (isText(content) || content === null) return undefined;
  const path = `messages[${index}]`;
  if (content === undefined) {
    if (role === "assistant" && (message["tool_calls"] !== undefined || message["function_call"] !== undefined))
      return undefined;
    return invalidRequest(`${path}.content is required`, `${path}.content`, "missing_required_parameter");
  }
  if (!Array.isArray(content)) {
    return invalidRequest(
      `${path}.content must be a string or an array of content parts, not ${typeName(content)}`,
      `${path}.content`,
      "invalid_type",
    );
  }
  for (let i = 0; i < content.length; i++) {
    const part = content[i];
    if (
      part === null ||
      typeof part !== "object" ||
      Array.isArray(part) ||
      typeof (part as Record<string, unknown>)["type"] !== "string"
    ) {
      return invalidRequest(
        `${path}.content[${i}] must be an object with a string "type"`,
        `${path}.content[${i}]`,
        "invalid_type",
      );
    }
  }
  return undefined;
}

/** Checks the fields the gateway reads (everything else is forwarded untouched); the body, typed, when it is valid. */
export function validateChat(body: unknown): ApiError | ChatBody {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return invalidRequest(`Request body must be a JSON object, not ${typeName(body)}`, null, "invalid_type");
  }
  const record = body as Record<string, unknown>;
  const model = record["model"];
  if (model === undefined) return invalidRequest("model is required", "model", "missing_required_parameter");
  if (model instanceof LongText)
    return invalidRequest(`model is ${model.length} characters long; send a model's name`, "model", "invalid_value");
  if (typeof model !== "string" || model === "")
    return invalidRequest("model must be a non-empty string", "model", "invalid_type");
  const messages = record["messages"];
  if (messages === undefined) return invalidRequest("messages is required", "messages", "missing_required_parameter");
  if (!Array.isArray(messages))
    return invalidRequest(`messages must be an array, not ${typeName(messages)}`, "messages", "invalid_type");
  if (messages.length === 0)
    return invalidRequest("messages must contain at least one message", "messages", "invalid_value");
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message === null || typeof message !== "object" || Array.isArray(message)) {
      const path = `messages[${i}]`;
      return invalidRequest(`${path} must be an object, not ${typeName(message)}`, path, "invalid_type");
    }
    const entry = message as Record<string, unknown>;
    const role = entry["role"];
    if (typeof role !== "string" || !ROLES.has(role)) {
      const path = `messages[${i}]`;
      return invalidRequest(
        `${path}.role must be one of system, user, assistant, tool, developer (got ${JSON.stringify(role) ?? "nothing"})`,
        `${path}.role`,
        "invalid_value",
      );
    }
    const problem = validateContent(entry["content"], i, role, entry);
    if (problem) return problem;
  }
  const stream = record["stream"];
  if (stream !== undefined && stream !== null && typeof stream !== "boolean") {
    return invalidRequest("stream must be true or false", "stream", "invalid_type");
  }
  const temperature = record["temperature"];
  if (temperature !== undefined && temperature !== null) {
    if (typeof temperature !== "number" || !(temperature >= 0 && temperature <= 2)) {
      return invalidRequest("temperature must be a number between 0 and 2", "temperature", "invalid_value");
    }
  }
  const stop = record["stop"];
  if (stop !== undefined && stop !== null && typeof stop !== "string") {
    if (!Array.isArray(stop) || stop.some((item) => typeof item !== "string")) {
      return invalidRequest("stop must be a string or an array of strings", "stop", "invalid_type");
    }
    if (stop.length > MAX_STOP_SEQUENCES) {
      return invalidRequest(
        `stop has ${stop.length} sequences; the maximum is ${MAX_STOP_SEQUENCES}`,
        "stop",
        "invalid_value",
      );
    }
  }
  const maxTokens = record["max_tokens"];
  if (maxTokens !== undefined && maxTokens !== null) {
    if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1) {
      return invalidRequest("max_tokens must be a positive integer", "max_tokens", "invalid_value");
    }
  }
  return body as ChatBody;
}
