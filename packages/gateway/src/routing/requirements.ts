import type { ChatBody, ChatMessage } from "../request/chat.ts";
import type { EmbeddingText } from "../request/embeddings.ts";
import { isText } from "../request/long-text.ts";
import type { Requirements } from "./types.ts";

const IMAGE_PART_TYPES = new Set(["image_url", "input_image", "image"]);
const JSON_FORMATS = new Set(["json_object", "json_schema"]);

function textLength(content: ChatMessage["content"]): { chars: number; image: boolean } {
  if (isText(content)) return { chars: content.length, image: false };
  let chars = 0;
  let image = false;
  for (const part of content ?? []) {
    if (isText(part.text)) chars += part.text.length;
    if (IMAGE_PART_TYPES.has(part.type)) image = true;
  }
  return { chars, image };
}

/** What a chat completion body needs: vision, tools, JSON mode, and its rough size in tokens. */
export function chatRequirements(body: ChatBody): Requirements {
  let chars = 0;
  let vision = false;
  for (const message of body.messages) {
    const { chars: length, image } = textLength(message.content);
    chars += length;
    vision ||= image;
  }
  const tools = body.tools;
  const format = body.response_format;
  const formatType = format && typeof format === "object" ? (format as { type?: unknown }).type : undefined;
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
