import type { JsonBody } from "../request/body.ts";
import { ApiError } from "../request/errors.ts";

/**
 * The request body to send for `model`: the client's bytes when the model is unchanged, otherwise the body with only
 * `model` replaced. A slim body (its long texts left in the parse worker) gets the new name spliced into its bytes
 * at the range the worker found; any other is re-serialised. A body too deeply nested to serialise is the client's
 * problem (400).
 */
export function bodyWithModel(
  body: Record<string, unknown>,
  raw: Buffer | undefined,
  model: string,
  slim?: Pick<NonNullable<JsonBody["slim"]>, "modelRange">,
): Buffer | string {
  if (raw !== undefined && body["model"] === model) return raw;
  if (slim !== undefined && raw !== undefined) {
    const range = slim.modelRange;
    if (range !== undefined) {
      return Buffer.concat([raw.subarray(0, range[0]), Buffer.from(JSON.stringify(model)), raw.subarray(range[1])]);
    }
    // Not expected (the worker finds "model" in any valid body); correct, at the cost of parsing here.
    return JSON.stringify({ ...(JSON.parse(raw.toString("utf8")) as Record<string, unknown>), model });
  }
  try {
    return JSON.stringify({ ...body, model });
  } catch {
    throw new ApiError(400, "Request body is nested too deeply to forward", "invalid_request_error", "invalid_value");
  }
}
