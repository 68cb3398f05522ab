// Gemini's POST /v1beta/models/{model}:batchEmbedContents, as Google answers it.
import { DEFAULT_EMBEDDING_DIMENSIONS, embeddingOf } from "./content.ts";
import { type Exchange, sendJson } from "./server.ts";

type ErrorAnswer = (exchange: Exchange, status: number, message: string) => void;

/** `{requests:[{model, content:{parts:[{text}]}, outputDimensionality?}]}` → `{embeddings:[{values}]}`. */
export function batchEmbed(exchange: Exchange, model: string, fail: ErrorAnswer): void {
  const known = exchange.models.find((candidate) => candidate.id === model);
  if (!known?.capabilities?.includes("embedding")) {
    fail(exchange, 404, `models/${model} is not found for API version v1beta, or is not supported for embedContent.`);
    return;
  }
  const body = exchange.body?.ok ? (exchange.body.value as { requests?: unknown }) : undefined;
  const requests = body?.requests;
  if (!Array.isArray(requests) || requests.length === 0) {
    fail(exchange, 400, "* BatchEmbedContentsRequest.requests: contents is not specified");
    return;
  }
  const embeddings: Array<{ values: number[] }> = [];
  for (const [index, request] of requests.entries()) {
    const entry = request as {
      model?: unknown;
      content?: { parts?: Array<{ text?: unknown }> };
      outputDimensionality?: unknown;
    };
    if (entry.model !== `models/${model}`) {
      fail(exchange, 400, `* BatchEmbedContentsRequest.requests[${index}].model: unexpected model name format`);
      return;
    }
    const text = (entry.content?.parts ?? []).map((part) => (typeof part.text === "string" ? part.text : "")).join("");
    const dimensions =
      typeof entry.outputDimensionality === "number"
        ? entry.outputDimensionality
        : (known.embeddingDimensions ?? DEFAULT_EMBEDDING_DIMENSIONS);
    embeddings.push({ values: embeddingOf(text, dimensions) });
  }
  sendJson(exchange, 200, { embeddings });
}
