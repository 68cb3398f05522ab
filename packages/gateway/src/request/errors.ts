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

// ── Keys and limits (see access/ and http/auth.ts) ──

/** 401: no key, or one that is not (or no longer) valid. The key itself is never echoed. */
export const invalidApiKey = (message: string) =>
  new ApiError(401, message, "invalid_request_error", "invalid_api_key");

/** 403: a valid key that may not do this (a virtual key on the admin API, a model outside its list). */
export const forbidden = (message: string, code: string, param: string | null = null) =>
  new ApiError(403, message, "invalid_request_error", code, param);

/** 429 as OpenAI words a rate limit: type "requests" or "tokens", code rate_limit_exceeded. */
export const rateLimitExceeded = (message: string, kind: "requests" | "tokens") =>
  new ApiError(429, message, kind, "rate_limit_exceeded");

/** 429 for a spent budget, as OpenAI answers an exhausted quota. */
export const insufficientQuota = (message: string) =>
  new ApiError(429, message, "insufficient_quota", "insufficient_quota");

/** 503: the state store cannot say whether a key this replica has never seen is valid. */
/** 503 when stored records (responses) cannot be read because the state store does not answer. */
export const recordsUnavailable = () =>
  new ApiError(
    503,
    "The gateway's state store is unreachable, so stored responses cannot be read right now; retry shortly",
    "server_error",
    "state_store_unavailable",
  );

export const stateStoreUnavailable = () =>
  new ApiError(
    503,
    "The gateway's state store is unreachable and this key has not been seen by this replica yet; retry shortly",
    "server_error",
    "state_store_unavailable",
  );
