// The errors a client can see: an HTTP status and OpenAI's envelope. Every layer returns or throws these; only
// http/ writes them.
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

/**
 * How an inbound API writes an ApiError: the status and the body in its own envelope. OpenAI's (`ApiError.body()`,
 * same status) unless an inbound adapter gives its own (Anthropic's, Ollama's...).
 */
export type ErrorEnvelope = (error: ApiError) => { status: number; body: unknown };

export const openAiEnvelope: ErrorEnvelope = (error) => ({ status: error.statusCode, body: error.body() });
