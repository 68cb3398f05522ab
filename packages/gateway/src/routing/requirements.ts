import type { EmbeddingText } from "../request/embeddings.ts";
import { isText } from "../request/long-text.ts";
import type { Requirements } from "./types.ts";

const IMAGE_PART_TYPES = new Set(["image_url", "input_image", "image"]);
const JSON_FORMATS = new Set(["json_object", "json_schema"]);

function textLength(content: unknown): { chars: number; image: boolean } {
  if (isText(content)) return { chars: content.length, image: false };
  let chars = 0;
  let image = false;
  if (Array.isArray(content)) {
    for (const part of content) {
      if (!part || typeof part !== "object") continue;
      const record = part as Record<string, unknown>;
      const text = record["text"];
      if (isText(text)) chars += text.length;
      if (typeof record["type"] === "string" && IMAGE_PART_TYPES.has(record["type"])) image = true;
    }
  }
  return { chars, image };
}

/** What a (validated) chat completion body needs: vision, tools, JSON mode, and its rough size in tokens. */
export function chatRequirements(body: Record<string, unknown>): Requirements {
  const messages = body["messages"] as unknown[];
  let chars = 0;
  let vision = false;
  for (const message of messages) {
    const { chars: length, image } = textLength((message as Record<string, unknown>)["content"]);
    chars += length;
    vision ||= image;
  }
  const tools = body["tools"];
  const format = body["response_format"];
  const formatType = format && typeof format === "object" ? (format as Record<string, unknown>)["type"] : undefined;
  return {
    kind: "chat",
    vision,
    tools: Array.isArray(tools) ? tools.length > 0 : tools !== undefined && tools !== null,
    json: typeof formatType === "string" && JSON_FORMATS.has(formatType),
    estimatedTokens: Math.ceil(chars / 4),
  };
}

export function embeddingsRequirements(input: EmbeddingText | EmbeddingText[]): Requirements {
  const chars = Array.isArray(input) ? input.reduce((sum, text) => sum + text.length, 0) : input.length;
  return { kind: "embeddings", vision: false, tools: false, json: false, estimatedTokens: Math.ceil(chars / 4) };
}
