import { plausibleTokens } from "../backends/usage.ts";

/** Tokens an answer in OpenAI's format reports in its `usage` object. */
export interface AnswerTokens {
  promptTokens: number;
  completionTokens: number;
}

/** `usage` objects are small: this much text after the key holds both counts. */
const USAGE_WINDOW = 512;
const PROMPT = /"prompt_tokens"\s*:\s*(\d+)/;
const COMPLETION = /"completion_tokens"\s*:\s*(\d+)/;
/** Searched for as bytes: a string needle is encoded again at every search of a Buffer. */
const USAGE_KEY = '"usage"';
const USAGE_KEY_BYTES = Buffer.from(USAGE_KEY);

/**
 * Reads the token counts of the last `"usage"` key in `text` (a whole JSON answer, or a piece of an event stream)
 * without parsing the answer: OpenAI and every compatible server put `usage` after the choices, and a `"usage"`
 * inside generated text is escaped (`\"usage\"`), so it is skipped. Undefined when there is none.
 */
export function answerTokens(text: Buffer | string): AnswerTokens | undefined {
  let at = lastUsageKey(text);
  while (at > 0 && (typeof text === "string" ? text.charCodeAt(at - 1) : text[at - 1]) === 0x5c) {
    at = lastUsageKey(text, at - 1);
  }
  if (at < 0) return undefined;
  const end = Math.min(text.length, at + USAGE_WINDOW);
  const window = typeof text === "string" ? text.slice(at, end) : text.toString("latin1", at, end);
  // `"usage": null` (the chunks before a stream's usage chunk) holds no counts.
  if (!/^"usage"\s*:\s*\{/.test(window)) return undefined;
  const object = window.slice(0, objectEnd(window));
  const prompt = PROMPT.exec(object);
  const completion = COMPLETION.exec(object);
  if (!prompt && !completion) return undefined;
  // Untrusted: a count of 400 digits would be Infinity in the token metrics.
  return {
    promptTokens: plausibleTokens(Number(prompt?.[1] ?? 0)),
    completionTokens: plausibleTokens(Number(completion?.[1] ?? 0)),
  };
}

function lastUsageKey(text: Buffer | string, before?: number): number {
  return typeof text === "string" ? text.lastIndexOf(USAGE_KEY, before) : text.lastIndexOf(USAGE_KEY_BYTES, before);
}

/** Where the first object in `text` ends (nested objects included), or the text's length. */
function objectEnd(text: string): number {
  let depth = 0;
  for (let i = text.indexOf("{"); i >= 0 && i < text.length; i++) {
    const c = text[i];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i + 1;
  }
  return text.length;
}
