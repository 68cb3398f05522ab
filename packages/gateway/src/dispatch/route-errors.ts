import { ApiError } from "../request/errors.ts";
import type { Unavailability } from "../routing/types.ts";
import { asciiHeader } from "./route-headers.ts";

const MAX_LISTED = 50;

/** 404 model_not_found naming what is available. */
export function modelNotFound(requested: string, available: readonly string[]): ApiError {
  const listed = available.slice(0, MAX_LISTED).join(", ");
  const more = available.length > MAX_LISTED ? `, and ${available.length - MAX_LISTED} more (see GET /v1/models)` : "";
  const tail = available.length === 0 ? "No models are available right now." : `Available: ${listed}${more}`;
  return new ApiError(
    404,
    `Model '${requested}' not found. ${tail}`,
    "invalid_request_error",
    "model_not_found",
    "model",
  );
}

export interface UnavailableOptions {
  /** Estimated seconds until capacity frees up, from observed service times; null when nothing is known. */
  etaSeconds?: number | null;
  /** Replaces the default message (queue full, waited too long). */
  message?: string;
  /** Sets Retry-After (seconds, rounded up, at least 1). */
  retryAfterSeconds?: number;
}

/** 503 no_available_backend with the spec's error.context, and the rejection headers. */
export function noAvailableBackend(
  requested: string,
  decision: Unavailability,
  what: string,
  options: UnavailableOptions = {},
): { error: ApiError; headers: Record<string, string> } {
  const reasons = [...new Set(decision.rejections.map((rejection) => rejection.reason))];
  const why = decision.rejections.map((r) => `${r.backend}: ${r.reason}`).join("; ");
  const message =
    options.message ?? `No backend can serve ${what} for model '${requested}' right now${why ? ` (${why})` : ""}`;
  const error = new ApiError(503, message, "service_unavailable", "no_available_backend", null, {
    required_tier: decision.requiredTier,
    available_backends: decision.availableBackends,
    privacy_zone_required: decision.privacyZoneRequired,
    eta_seconds: options.etaSeconds ?? null,
  });
  const headers: Record<string, string> = {};
  if (reasons.length > 0) {
    headers["x-gateway-rejection-reasons"] = reasons.join(", ");
    headers["x-gateway-rejection-details"] = asciiHeader(JSON.stringify(decision.rejections));
  }
  if (options.retryAfterSeconds !== undefined) {
    headers["retry-after"] = String(Math.max(1, Math.ceil(options.retryAfterSeconds)));
  }
  return { error, headers };
}
