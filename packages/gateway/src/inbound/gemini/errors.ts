import type { ErrorEnvelope } from "../../request/errors.ts";

/** Google's canonical status names (google.rpc.Code) for the HTTP statuses the gateway answers. */
function statusNameOf(status: number): string {
  if (status === 400 || status === 413 || status === 422) return "INVALID_ARGUMENT";
  if (status === 401) return "UNAUTHENTICATED";
  if (status === 403) return "PERMISSION_DENIED";
  if (status === 404) return "NOT_FOUND";
  if (status === 408 || status === 504) return "DEADLINE_EXCEEDED";
  if (status === 429) return "RESOURCE_EXHAUSTED";
  if (status === 501) return "UNIMPLEMENTED";
  if (status === 503) return "UNAVAILABLE";
  return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
}

/** `{"error":{"code","message","status"}}`, same status, as the Gemini API answers its errors. */
export const geminiEnvelope: ErrorEnvelope = (error) => ({
  status: error.statusCode,
  body: { error: { code: error.statusCode, message: error.message, status: statusNameOf(error.statusCode) } },
});

/** The error a Gemini stream ends with when it broke off (its clients read `error` in a chunk). */
export function geminiStreamError(message: string, sse: boolean): string {
  const chunk = JSON.stringify({ error: { code: 500, message, status: "INTERNAL" } });
  return sse ? `data: ${chunk}\r\n\r\n` : chunk;
}
