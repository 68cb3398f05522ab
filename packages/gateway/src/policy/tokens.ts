import { createRequire } from "node:module";
import { LongText } from "../http/long-texts.ts";

/**
 * gpt-tokenizer is loaded when first needed (or at start-up, by loadTokenizer, when cloud backends are configured):
 * its o200k tables are 21 MB of the heap, two thirds of the gateway's, and every full garbage collection walks them.
 * A gateway of local backends that report their own usage never needs it.
 */
let bpe: ((text: string) => number) | undefined;
const requireModule = createRequire(import.meta.url);

function countBpe(text: string): number {
  bpe ??= (requireModule("gpt-tokenizer") as typeof import("gpt-tokenizer")).countTokens;
  return bpe(text);
}

/** Loads the tokenizer now (about 0.1 s), so that no request waits for it. */
export function loadTokenizer(): void {
  countBpe("");
}

/**
 * Text beyond this many characters is not tokenised: its count is extrapolated from the tokenised part. Bounds the
 * event-loop time one request can take (a 10 MB prompt would otherwise block for seconds).
 */
const MAX_TOKENISED_CHARS = 256 * 1024;
/** OpenAI's per-message overhead in chat prompts (role markers). */
const TOKENS_PER_MESSAGE = 3;
/** A rough count for an image part (OpenAI's low-detail price); providers differ, this is an estimate. */
const TOKENS_PER_IMAGE = 85;

/** Tokens in `text` with o200k_base (GPT-4o's encoding; a close estimate for other providers' models). */
export function countTextTokens(text: string): number {
  if (text.length <= MAX_TOKENISED_CHARS) return countBpe(text);
  const sample = countBpe(text.slice(0, MAX_TOKENISED_CHARS));
  return Math.ceil((sample * text.length) / MAX_TOKENISED_CHARS);
}

/** Counts a chat request's prompt: message texts, tool definitions and a fixed overhead per message and image. */
export function countPromptTokens(body: Record<string, unknown>): number {
  const messages = Array.isArray(body["messages"]) ? body["messages"] : [];
  let text = "";
  let images = 0;
  // Texts left in the parse worker are counted from their sample, scaled to their length.
  let longTokens = 0;
  const add = (value: string | LongText) => {
    if (typeof value === "string") text += `${value}\n`;
    else if (value.sample.length > 0)
      longTokens += Math.ceil((countBpe(value.sample) * value.length) / value.sample.length);
  };
  for (const message of messages) {
    if (!message || typeof message !== "object") continue;
    const content = (message as Record<string, unknown>)["content"];
    if (typeof content === "string" || content instanceof LongText) add(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (!part || typeof part !== "object") continue;
        const partText = (part as Record<string, unknown>)["text"];
        if (typeof partText === "string" || partText instanceof LongText) add(partText);
        else images++;
      }
    }
    const calls = (message as Record<string, unknown>)["tool_calls"];
    if (Array.isArray(calls)) text += `${JSON.stringify(calls)}\n`;
    if (text.length > MAX_TOKENISED_CHARS * 4) break;
  }
  if (Array.isArray(body["tools"])) text += JSON.stringify(body["tools"]);
  return countTextTokens(text) + longTokens + messages.length * TOKENS_PER_MESSAGE + images * TOKENS_PER_IMAGE;
}
