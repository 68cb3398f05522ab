import type { EmbeddingsInput } from "../request/embeddings.ts";
import { type ApiError, invalidRequest } from "../request/errors.ts";
import { isText } from "../request/long-text.ts";

const MAX_EMBEDDING_INPUTS = 2048;

/** Validates an embeddings request: model, input (string or 1..2048 strings, none empty), encoding_format. */
export function validateEmbeddings(body: unknown): ApiError | EmbeddingsInput {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return invalidRequest("Request body must be a JSON object", null, "invalid_type");
  }
  const record = body as Record<string, unknown>;
  const model = record["model"];
  if (model === undefined) return invalidRequest("model is required", "model", "missing_required_parameter");
  if (typeof model !== "string" || model === "")
    return invalidRequest("model must be a non-empty string", "model", "invalid_type");
  const input = record["input"];
  if (input === undefined) return invalidRequest("input is required", "input", "missing_required_parameter");
  if (isText(input)) {
    if (input.length === 0) return invalidRequest("input must not be empty", "input", "invalid_value");
  } else if (Array.isArray(input)) {
    if (input.length === 0) return invalidRequest("input must not be empty", "input", "invalid_value");
    if (input.length > MAX_EMBEDDING_INPUTS) {
      return invalidRequest(
        `input has ${input.length} items; the maximum is ${MAX_EMBEDDING_INPUTS}`,
        "input",
        "invalid_value",
      );
    }
    for (let i = 0; i < input.length; i++) {
      const item: unknown = input[i];
      if (!isText(item) || item.length === 0) {
        return invalidRequest(`input[${i}] must be a non-empty string`, `input[${i}]`, "invalid_type");
      }
    }
  } else {
    return invalidRequest("input must be a string or an array of strings", "input", "invalid_type");
  }
  const format = record["encoding_format"];
  if (format !== undefined && format !== null && format !== "float" && format !== "base64") {
    return invalidRequest('encoding_format must be "float" or "base64"', "encoding_format", "invalid_value");
  }
  return {
    model,
    input: input as EmbeddingsInput["input"],
    encodingFormat: (format ?? undefined) as EmbeddingsInput["encodingFormat"],
  };
}
