import { errorEnvelope, errorTypeFor } from "../openai-chat.ts";
import type { GeminiError } from "./types.ts";

/**
 * A Gemini error → OpenAI's envelope. The status is kept (429 RESOURCE_EXHAUSTED and 5xx fail over), except an invalid
 * key: Gemini answers 400 API_KEY_INVALID, which is the gateway's configuration, not the client's request, so it
 * becomes 401 (fails over, never relayed).
 */
export function toOpenAiError(status: number, body: Buffer): { status: number; body: string } {
  let message = `google answered HTTP ${status}`;
  let code: string | null = null;
  let keyInvalid = false;
  try {
    const parsed = JSON.parse(body.toString("utf8")) as Partial<GeminiError>;
    if (typeof parsed.error?.message === "string") message = parsed.error.message;
    if (typeof parsed.error?.status === "string") code = parsed.error.status;
    keyInvalid = parsed.error?.details?.some((detail) => detail?.reason === "API_KEY_INVALID") ?? false;
  } catch {
    // not Google's JSON: the status says enough
  }
  const mapped = keyInvalid ? 401 : status;
  return { status: mapped, body: errorEnvelope(message, errorTypeFor(mapped), code) };
}
