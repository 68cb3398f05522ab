// OpenAI's embeddings request → Gemini's batchEmbedContents, and its answer back into OpenAI's list.
import type { EmbeddingsCall, UpstreamReply } from "../types.ts";

/** The native request: one entry per input text, `dimensions` as outputDimensionality. */
export function batchEmbedRequest(call: EmbeddingsCall): { path: (version: string) => string; body: string } {
  const parsed: unknown = JSON.parse(call.inputJson().toString());
  const texts = Array.isArray(parsed) ? parsed.map(String) : [String(parsed)];
  const model = `models/${call.model}`;
  const requests = texts.map((text) => ({
    model,
    content: { parts: [{ text }] },
    ...(call.dimensions === undefined ? {} : { outputDimensionality: call.dimensions }),
  }));
  return {
    path: (version) => `/${version}/models/${encodeURIComponent(call.model)}:batchEmbedContents`,
    body: JSON.stringify({ requests }),
  };
}

/** `{embeddings:[{values}]}` → OpenAI's list (Gemini reports no token count: estimated at 4 characters a token). */
export function toOpenAiEmbeddings(
  body: Buffer,
  call: EmbeddingsCall,
  requestBody: string,
): { reply: UpstreamReply; tokens: number } | undefined {
  let parsed: { embeddings?: Array<{ values?: unknown }> };
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed.embeddings)) return undefined;
  const tokens = Math.ceil(requestBody.length / 4);
  const data = parsed.embeddings.map((entry, index) => ({
    object: "embedding",
    index,
    embedding: call.encodingFormat === "base64" ? toBase64(entry.values) : (entry.values ?? []),
  }));
  const list = { object: "list", data, model: call.model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
  return {
    reply: { statusCode: 200, contentType: "application/json", body: Buffer.from(JSON.stringify(list)) },
    tokens,
  };
}

/** OpenAI's base64 encoding of an embedding: little-endian float32. */
function toBase64(vector: unknown): string {
  const values = Array.isArray(vector) ? vector : [];
  const floats = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) floats[i] = Number(values[i]);
  return Buffer.from(floats.buffer).toString("base64");
}
