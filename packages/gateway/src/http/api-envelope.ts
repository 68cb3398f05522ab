import type { IncomingHttpHeaders } from "node:http";
import { anthropicEnvelope } from "../inbound/anthropic/errors.ts";
import { geminiEnvelope } from "../inbound/gemini/errors.ts";
import { isGeminiPath } from "../inbound/gemini/path.ts";
import { ollamaEnvelope } from "../inbound/ollama/errors.ts";
import { type ErrorEnvelope, openAiEnvelope } from "../request/errors.ts";

/**
 * The error envelope of the API a request speaks, for answers given before its route runs (authentication, key
 * limits): Anthropic's for /v1/messages and for any request of an Anthropic client (it sends anthropic-version),
 * Ollama's for /api/*, Gemini's for its model calls and /v1beta/*, OpenAI's otherwise.
 */
export function envelopeOf(request: { url?: string; headers: IncomingHttpHeaders }, model = ""): ErrorEnvelope {
  const path = request.url ?? "";
  if (path.startsWith("/v1/messages") || request.headers["anthropic-version"] !== undefined) return anthropicEnvelope;
  if (path.startsWith("/api/")) return ollamaEnvelope(model);
  if (isGeminiPath(path)) return geminiEnvelope;
  return openAiEnvelope;
}
