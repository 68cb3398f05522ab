// The Client-Server API's error answers, with Synapse's status codes and texts: `{ errcode, error }` bodies.
import type { ServerResponse } from "node:http";

export class MatrixHttpError extends Error {
  constructor(
    readonly status: number,
    readonly errcode: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const errors = {
  missingToken: () => new MatrixHttpError(401, "M_MISSING_TOKEN", "Missing access token"),
  unknownToken: () =>
    new MatrixHttpError(401, "M_UNKNOWN_TOKEN", "Invalid access token passed.", { soft_logout: false }),
  forbidden: (message: string) => new MatrixHttpError(403, "M_FORBIDDEN", message),
  notFound: (message: string) => new MatrixHttpError(404, "M_NOT_FOUND", message),
  notJson: () => new MatrixHttpError(400, "M_NOT_JSON", "Content not JSON."),
  badJson: (message: string) => new MatrixHttpError(400, "M_BAD_JSON", message),
  unrecognized: () => new MatrixHttpError(404, "M_UNRECOGNIZED", "Unrecognized request"),
  methodNotAllowed: () => new MatrixHttpError(405, "M_UNRECOGNIZED", "Unrecognized request"),
  /** Synapse sends both the (deprecated since v1.10) body field and the Retry-After header, in whole seconds. */
  limitExceeded: (retryAfterMs: number) =>
    new MatrixHttpError(
      429,
      "M_LIMIT_EXCEEDED",
      "Too Many Requests",
      { retry_after_ms: retryAfterMs },
      { "retry-after": String(Math.ceil(retryAfterMs / 1000)) },
    ),
};

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-cache, no-store, must-revalidate",
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: MatrixHttpError): void {
  sendJson(res, error.status, { errcode: error.errcode, error: error.message, ...error.extra }, error.headers);
}
