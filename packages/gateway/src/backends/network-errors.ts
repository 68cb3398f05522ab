import { thrownMessage } from "@switchboard/common";

/** A failure to get any HTTP answer from a backend (refused, reset, DNS, timeout). */
export class UpstreamUnreachable extends Error {
  override readonly name = "UpstreamUnreachable";
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

/**
 * An answer larger than `[server] answer_limit_bytes`: its call is stopped there and fails as a network failure would
 * (fails over before the first byte, breaks the stream after it), so that no backend can make the gateway hold or
 * scan without end.
 */
export class AnswerTooLarge extends UpstreamUnreachable {
  constructor(limitBytes: number) {
    super(`answered more than ${limitBytes} bytes (server.answer_limit_bytes)`, false);
  }
}

/** Any failure to get an answer from a backend, as UpstreamUnreachable (abort errors pass through). */
export function toUnreachable(error: unknown): Error {
  if (error instanceof UpstreamUnreachable) return error;
  if (error instanceof Error && error.name === "AbortError") return error;
  const timedOut =
    isUndiciError(error, "UND_ERR_HEADERS_TIMEOUT") ||
    isUndiciError(error, "UND_ERR_BODY_TIMEOUT") ||
    isUndiciError(error, "UND_ERR_CONNECT_TIMEOUT") ||
    (error instanceof Error && error.name === "TimeoutError");
  const message = error instanceof Error ? describeNetworkError(error) : thrownMessage(error);
  return new UpstreamUnreachable(message, timedOut);
}

/**
 * `error instanceof` undici's error class with this code, without loading undici (which only the backends' lazy pool
 * does): undici's error classes answer instanceof by this registered symbol, so that copies of undici agree.
 */
function isUndiciError(error: unknown, code: string): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[Symbol.for(`undici.error.${code}`)] === true
  );
}

/** The words every backend failure is described in, whichever client met it. */
export const NETWORK_FAILURE = {
  refused: "connection refused",
  headersTimeout: "timed out waiting for the response",
  bodyTimeout: "timed out waiting for the response body",
  connectTimeout: "timed out connecting",
  reset: "connection reset",
} as const;

function describeNetworkError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code ?? (error.cause as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ECONNREFUSED") return NETWORK_FAILURE.refused;
  if (code === "UND_ERR_HEADERS_TIMEOUT") return NETWORK_FAILURE.headersTimeout;
  if (code === "UND_ERR_BODY_TIMEOUT") return NETWORK_FAILURE.bodyTimeout;
  if (code === "UND_ERR_CONNECT_TIMEOUT") return NETWORK_FAILURE.connectTimeout;
  if (code === "UND_ERR_SOCKET" || code === "ECONNRESET" || code === "EPIPE") return NETWORK_FAILURE.reset;
  return code ? `${error.message} (${code})` : error.message;
}
