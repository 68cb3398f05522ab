/** OpenAI's error envelope: {"error":{"message","type","param","code"}}; 503 adds error.context. */
export interface ErrorBody {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: string | null;
    context?: Record<string, unknown>;
  };
}

/** An error a client sees: its HTTP status and its envelope. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly type: string,
    readonly code: string | null,
    readonly param: string | null = null,
    readonly context?: Record<string, unknown>,
  ) {
    super(message);
  }

  body(): ErrorBody {
    const error: ErrorBody["error"] = { message: this.message, type: this.type, param: this.param, code: this.code };
    if (this.context) error.context = this.context;
    return { error };
  }
}

export const invalidRequest = (message: string, param: string | null = null, code: string | null = "invalid_value") =>
  new ApiError(400, message, "invalid_request_error", code, param);

/** 413 naming the setting and its value. */
export const bodyTooLarge = (limit: number) =>
  new ApiError(
    413,
    `Request body is larger than the limit of ${limit} bytes (server.body_limit_bytes)`,
    "invalid_request_error",
    "request_too_large",
  );

/** Fastify's own errors (body limit, media type, bad JSON) in the envelope. */
export function fromFrameworkError(error: { statusCode?: number; code?: string; message: string }): ApiError {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new ApiError(
        413,
        "Request body is larger than the limit (server.body_limit_bytes)",
        "invalid_request_error",
        "request_too_large",
      );
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new ApiError(
        error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" ? 415 : 400,
        error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE"
          ? "Unsupported content type; send the body as application/json"
          : "Content-Length does not match the body",
        "invalid_request_error",
        error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" ? "unsupported_media_type" : "invalid_content_length",
      );
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return invalidRequest("Request body is empty; send a JSON object", null, "invalid_json");
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ApiError(status, error.message, "invalid_request_error", "invalid_request");
  }
  return new ApiError(500, "Internal error", "server_error", "internal_error");
}
