// OpenAI's text completions (POST /v1/completions): the API of code completion (Continue, Tabby, minuet...), a raw
// prompt and, for fill-in-the-middle, a `suffix`. They go to the backends that serve that API as written; what the
// pipeline reads of them (the model, the size of the prompt, the token limit) is a chat body, for routing only.
import type { ChatBody } from "../../request/chat.ts";
import { type ApiError, invalidRequest } from "../../request/errors.ts";
import { isObject } from "../json-object.ts";

export interface CompletionRequest {
  /** What routing reads: one user message holding the prompt and the suffix, the token limit, the stream flag. */
  body: ChatBody;
  stream: boolean;
}

/** The request's routing facts, or why it is refused (in OpenAI's words, naming the parameter). */
export function fromCompletionRequest(value: unknown): CompletionRequest | ApiError {
  if (!isObject(value)) return invalidRequest("Request body must be a JSON object", null, "invalid_type");
  const model = value["model"];
  if (typeof model !== "string" || model === "") {
    return invalidRequest("model is required", "model", "missing_required_parameter");
  }
  const prompt = promptText(value["prompt"]);
  if (prompt === undefined) {
    return invalidRequest(
      "prompt must be a string, an array of strings or an array of token ids",
      "prompt",
      value["prompt"] === undefined ? "missing_required_parameter" : "invalid_type",
    );
  }
  const suffix = value["suffix"];
  if (suffix !== undefined && suffix !== null && typeof suffix !== "string") {
    return invalidRequest("suffix must be a string", "suffix", "invalid_type");
  }
  const maxTokens = value["max_tokens"];
  if (maxTokens !== undefined && maxTokens !== null && !(Number.isInteger(maxTokens) && (maxTokens as number) >= 0)) {
    return invalidRequest("max_tokens must be an integer of 0 or more", "max_tokens", "invalid_type");
  }
  const stream = value["stream"] === true;
  const body: ChatBody = { model, messages: [{ role: "user", content: prompt + (suffix ?? "") }] };
  if (typeof maxTokens === "number" && maxTokens > 0) body.max_tokens = maxTokens;
  if (stream) body.stream = true;
  return { body, stream };
}

/**
 * Four characters: what routing's estimate (a token per four characters, routing/requirements.ts) reads as one token,
 * so that a prompt of token ids is estimated at its own length.
 */
const ONE_TOKEN = "xxxx";

/** The prompt's text, as long as routing's estimate should read it (a token id as one token); undefined if bad. */
function promptText(prompt: unknown): string | undefined {
  if (typeof prompt === "string") return prompt;
  if (!Array.isArray(prompt)) return undefined;
  if (prompt.every((item) => typeof item === "string")) return prompt.join("");
  const isTokens = (items: unknown[]) => items.every((item) => Number.isInteger(item));
  if (isTokens(prompt)) return ONE_TOKEN.repeat(prompt.length);
  if (prompt.every((item) => Array.isArray(item) && isTokens(item))) {
    return ONE_TOKEN.repeat(prompt.reduce((sum: number, item: unknown[]) => sum + item.length, 0));
  }
  return undefined;
}
