import type { ChatBody } from "../request/chat.ts";
import { isText, type LongText } from "../request/long-text.ts";
import { startModuleWorker } from "../threads/module-worker.ts";
import { SerialWorker } from "../threads/serial-worker.ts";

/** Counts posted to the tokenizer thread ahead of its replies. */
const TOKENIZER_JOBS_IN_FLIGHT = 64;

/**
 * BPE counts (what cloud calls are billed on) come from the tokenizer thread: gpt-tokenizer's o200k tables are 21 MB,
 * which would be two thirds of the event loop's heap and lengthen every full garbage collection, and tokenising a
 * hostile text costs milliseconds per kilobyte even with its worst cases cut (token-count.ts). The thread starts
 * when first needed, or at start-up (loadTokenizer) when cloud backends are configured.
 */
const tokenizer = new SerialWorker<number>(
  () => startModuleWorker(import.meta.url, "tokenizer-thread"),
  // A reply is one number, cheap to take in: counts are posted ahead, not one per loop turn.
  TOKENIZER_JOBS_IN_FLIGHT,
);

/**
 * Text beyond this many characters is not tokenised: its count is extrapolated from the tokenised part. Bounds the
 * thread's time per request (the slowest text, random CJK, is the bound's measure), so that one request cannot hold
 * up the counts of the others for long.
 */
export const MAX_TOKENISED_CHARS = 64 * 1024;
/** OpenAI's per-message overhead in chat prompts (role markers). */
const TOKENS_PER_MESSAGE = 3;
/** A rough count for an image part (OpenAI's low-detail price); providers differ, this is an estimate. */
const TOKENS_PER_IMAGE = 85;

/** Starts the tokenizer thread and loads its tables now, so that no request waits for them. */
export function loadTokenizer(): void {
  void countTextTokens("warm");
}

/** The tokens of `chars` characters of text that begin with `sample`: counted on the thread, scaled to the length. */
async function countSampled(sample: string, chars: number): Promise<number> {
  const text = sample.slice(0, MAX_TOKENISED_CHARS);
  if (text.length === 0) return Math.ceil(chars / 4);
  try {
    return Math.ceil(((await tokenizer.run(text)) * chars) / text.length);
  } catch {
    // The thread died (it is started again for the next count): four characters per token, as local routes count.
    return Math.ceil(chars / 4);
  }
}

/** Tokens in `text` with o200k_base (GPT-4o's encoding; a close estimate for other providers' models). */
export function countTextTokens(text: string): Promise<number> {
  return countSampled(text, text.length);
}

/**
 * Counts a chat request's prompt: message texts, tool definitions and a fixed overhead per message and image. The
 * first MAX_TOKENISED_CHARS characters of all texts are tokenised, the rest extrapolated; texts left in the parse
 * worker (LongText) count with their length and contribute their sample.
 */
export function countPromptTokens(body: ChatBody): Promise<number> {
  const messages = body.messages;
  let sample = "";
  let chars = 0;
  let images = 0;
  const add = (value: string | LongText) => {
    chars += value.length + 1;
    if (sample.length >= MAX_TOKENISED_CHARS) return;
    const text = typeof value === "string" ? value : value.sample;
    sample += `${text.slice(0, MAX_TOKENISED_CHARS - sample.length)}\n`;
  };
  for (const message of messages) {
    const content = message.content;
    if (isText(content)) add(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (isText(part.text)) add(part.text);
        else images++;
      }
    }
    if (Array.isArray(message.tool_calls)) add(JSON.stringify(message.tool_calls));
  }
  if (Array.isArray(body.tools)) add(JSON.stringify(body.tools));
  const fixed = messages.length * TOKENS_PER_MESSAGE + images * TOKENS_PER_IMAGE;
  return chars === 0 ? Promise.resolve(fixed) : countSampled(sample, chars).then((tokens) => tokens + fixed);
}
