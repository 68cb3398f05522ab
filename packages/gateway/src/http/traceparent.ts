import type { IncomingHttpHeaders } from "node:http";

/** W3C trace context: version-traceid-parentid-flags, lower-case hex (https://www.w3.org/TR/trace-context/). */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The request's `traceparent` when it is well formed; anything else is ignored (a new trace starts). */
export function traceparentOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers["traceparent"];
  return typeof value === "string" && TRACEPARENT.test(value) ? value : undefined;
}
