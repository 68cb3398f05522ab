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
/**
 * The key without its opening quote, searched for forwards (as bytes: a string needle is encoded again at every
 * search of a Buffer). Node's search for `"usage"` is slow on JSON, where its first byte is everywhere, and a search
 * backwards is slow whatever the needle: 8-10 µs over a 4.8 kB batch of stream events against 1 µs for this one.
 */
const USAGE_TAIL = 'usage"';
const USAGE_TAIL_BYTES = Buffer.from(USAGE_TAIL);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Reads the token counts of the last `"usage"` key in `text` (a whole JSON answer, or a piece of an event stream)
 * without parsing the answer: OpenAI and every compatible server put `usage` after the choices, and a `"usage"`
 * inside generated text is escaped (`\"usage\"`), so it is skipped. Undefined when there is none.
 */
export function answerTokens(text: Buffer | string): AnswerTokens | undefined {
  const at = lastUsageKey(text);
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

/** Where the last `"usage"` in `text` that is not escaped (`\\"usage\\"`) starts, or -1. */
function lastUsageKey(text: Buffer | string): number {
  return typeof text === "string" ? lastUsageKeyInString(text) : lastUsageKeyInBytes(text);
}

function lastUsageKeyInBytes(bytes: Buffer): number {
  let last = -1;
  for (let tail = bytes.indexOf(USAGE_TAIL_BYTES); tail >= 0; tail = bytes.indexOf(USAGE_TAIL_BYTES, tail + 1)) {
    if (tail > 0 && bytes[tail - 1] === QUOTE && (tail === 1 || bytes[tail - 2] !== BACKSLASH)) last = tail - 1;
  }
  return last;
}

function lastUsageKeyInString(text: string): number {
  let last = -1;
  for (let tail = text.indexOf(USAGE_TAIL); tail >= 0; tail = text.indexOf(USAGE_TAIL, tail + 1)) {
    if (tail > 0 && text.charCodeAt(tail - 1) === QUOTE && (tail === 1 || text.charCodeAt(tail - 2) !== BACKSLASH)) {
      last = tail - 1;
    }
  }
  return last;
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
