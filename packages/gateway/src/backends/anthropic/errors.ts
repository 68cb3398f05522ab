import { errorEnvelope, errorTypeFor } from "../openai-chat.ts";
import type { AnthropicError } from "./types.ts";

/**
 * An Anthropic error answer → OpenAI's envelope, same status: 529 (overloaded_error) and 429 stay backend faults that
 * fail over, 4xx stay the client's. The Anthropic error type becomes the `code`.
 */
export function toOpenAiError(status: number, body: Buffer): { status: number; body: string } {
  let type: string | null = null;
  let message = `anthropic answered HTTP ${status}`;
  try {
    const parsed = JSON.parse(body.toString("utf8")) as Partial<AnthropicError>;
    if (typeof parsed.error?.type === "string") type = parsed.error.type;
    if (typeof parsed.error?.message === "string") message = parsed.error.message;
  } catch {
    // not Anthropic's JSON (a proxy in between): the status says enough
  }
  return { status, body: errorEnvelope(message, errorTypeFor(status), type) };
}
