import { ApiError } from "../http/errors.ts";

/**
 * The request body to send for `model`: the client's bytes when the model is unchanged, otherwise the parsed body
 * re-serialised with only `model` replaced. A body too deeply nested to serialise is the client's problem (400).
 */
export function bodyWithModel(body: Record<string, unknown>, raw: Buffer | undefined, model: string): Buffer | string {
  if (raw !== undefined && body["model"] === model) return raw;
  try {
    return JSON.stringify({ ...body, model });
  } catch {
    throw new ApiError(400, "Request body is nested too deeply to forward", "invalid_request_error", "invalid_value");
  }
}
