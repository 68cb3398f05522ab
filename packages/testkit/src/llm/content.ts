// What the fakes answer: deterministic replies, chunking, token counts and embedding vectors.
import type { Capability, ChatMessage, ChatRequest, FakeModel, Reply, ToolCall } from "./types.ts";

export const DEFAULT_CAPABILITIES: Capability[] = ["completion", "tools", "json"];
export const DEFAULT_CONTEXT_LENGTH = 8192;
export const DEFAULT_EMBEDDING_DIMENSIONS = 16;
export const DEFAULT_MODELS: FakeModel[] = [{ id: "fake-model" }];

export function capabilitiesOf(model: FakeModel): Capability[] {
  return model.capabilities ?? DEFAULT_CAPABILITIES;
}

/** The text of a message's content: a string as is, the text parts of an array joined, "" otherwise. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      part && typeof part === "object" && "text" in part && typeof part.text === "string" ? part.text : "",
    )
    .join("");
}

function lastMessage(messages: ChatMessage[], role?: string): ChatMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message && (role === undefined || message.role === role)) return message;
  }
  return undefined;
}

function toolName(tool: unknown): string | undefined {
  if (!tool || typeof tool !== "object") return undefined;
  const fn = (tool as { function?: unknown }).function;
  if (fn && typeof fn === "object" && typeof (fn as { name?: unknown }).name === "string") {
    return (fn as { name: string }).name;
  }
  return undefined;
}

/** The default answer (see FakeLlmOptions.reply). */
export function defaultReply(request: ChatRequest): Reply {
  const last = lastMessage(request.messages);
  if (last?.role === "tool") return `tool result: ${textOf(last.content)}`;
  const user = textOf(lastMessage(request.messages, "user")?.content);
  const firstTool = Array.isArray(request.tools) ? toolName(request.tools[0]) : undefined;
  if (last?.role === "user" && firstTool) return { toolCalls: [{ name: firstTool, arguments: { query: user } }] };
  return `echo: ${user}`;
}

/** Splits text into `count` pieces of near-equal length (fewer when the text is shorter; one empty piece for ""). */
export function splitIntoChunks(text: string, count: number): string[] {
  const characters = Array.from(text);
  const pieces = Math.max(1, Math.min(count, characters.length));
  const out: string[] = [];
  for (let i = 0; i < pieces; i++) {
    const start = Math.floor((i * characters.length) / pieces);
    const end = Math.floor(((i + 1) * characters.length) / pieces);
    out.push(characters.slice(start, end).join(""));
  }
  return out;
}

/** A rough, deterministic token count (4 characters per token, at least 1). */
export function countTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export function promptTokens(messages: ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + countTokens(textOf(message.content)) + 3, 0);
}

export interface NormalizedToolCall {
  id: string;
  name: string;
  /** JSON text, as OpenAI sends it. */
  arguments: string;
}

export function normalizeToolCalls(calls: ToolCall[], seed: number): NormalizedToolCall[] {
  return calls.map((call, index) => ({
    id: call.id ?? `call_${seed.toString(36)}_${index}`,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
  }));
}

/** A unit vector derived from the text (FNV-1a seeded xorshift): the same text always gives the same vector. */
export function embeddingOf(text: string, dimensions: number): number[] {
  let state = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    state ^= text.charCodeAt(i);
    state = Math.imul(state, 0x01000193) >>> 0;
  }
  if (state === 0) state = 1;
  const vector: number[] = [];
  for (let i = 0; i < dimensions; i++) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    vector.push(state / 0xffffffff - 0.5);
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => Math.fround(x / norm));
}

/** The vector as OpenAI's `encoding_format: "base64"` sends it: little-endian float32, base64. */
export function embeddingToBase64(vector: number[]): string {
  const buffer = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => {
    buffer.writeFloatLE(x, i * 4);
  });
  return buffer.toString("base64");
}

/** Normalizes an embeddings `input` (string or array of strings) or returns undefined when it is malformed. */
export function embeddingInputs(input: unknown): string[] | undefined {
  if (typeof input === "string") return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((item) => typeof item === "string")) return input;
  return undefined;
}
