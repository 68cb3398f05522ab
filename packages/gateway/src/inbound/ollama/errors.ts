import type { ErrorEnvelope } from "../../request/errors.ts";

/**
 * Ollama's error answer: `{"error":"..."}`, same status; an unknown model is Ollama's own words
 * (`model 'x' not found`, 404), which clients match on.
 */
export function ollamaEnvelope(model: string): ErrorEnvelope {
  return (error) => ({
    status: error.statusCode,
    body: { error: error.code === "model_not_found" ? `model '${model}' not found` : error.message },
  });
}
