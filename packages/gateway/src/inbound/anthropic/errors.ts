import type { ErrorEnvelope } from "../../request/errors.ts";

/** Anthropic's error type for a status (https://docs.anthropic.com/en/api/errors). */
function errorTypeOf(status: number): string {
  if (status === 400 || status === 422) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 503 || status === 529) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

/** `{"type":"error","error":{"type","message"}}`, same status: the gateway's 503 (no backend free) is overloaded_error. */
export const anthropicEnvelope: ErrorEnvelope = (error) => ({
  status: error.statusCode,
  body: { type: "error", error: { type: errorTypeOf(error.statusCode), message: error.message } },
});

/** Anthropic's in-stream error event. */
export function anthropicErrorEvent(type: string, message: string): string {
  return `event: error\ndata: ${JSON.stringify({ type: "error", error: { type, message } })}\n\n`;
}
