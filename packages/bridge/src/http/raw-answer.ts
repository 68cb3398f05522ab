// HTTP answers written straight on a socket, for what Node's parser refuses before any request object exists (bad
// request lines, oversized headers, timeouts, CONNECT): a designed status and {"message": "..."}, then the socket is
// closed whatever the client does. Shared by the api accounts' servers and the status endpoint.
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

const JSON_TYPE = "application/json; charset=utf-8";

export function errorBody(message: string): string {
  return JSON.stringify({ message });
}

/** A complete HTTP/1.1 answer for a socket that has no request object (parser errors, CONNECT, over the cap). */
function rawErrorResponse(status: number, message: string, headers: Record<string, string> = {}): string {
  const body = errorBody(message);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}\r\nContent-Type: ${JSON_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${extra}\r\n${body}`
  );
}

/** What Node's HTTP parser (llhttp) and server timeouts reject, as a status and a message saying what to fix. */
export function describeClientError(error: Error & { code?: string; reason?: string }): {
  status: number;
  message: string;
} {
  const reason = error.reason ?? error.code ?? "parse error";
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: "request not received in time: send the headers and body without pausing" };
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, message: "request headers too large" };
    case "HPE_INVALID_METHOD":
      return { status: 400, message: "unknown HTTP method" };
  }
  // llhttp refuses both headers together (request smuggling), naming whichever came second.
  if (reason.includes("can't be present with")) {
    return { status: 400, message: "Content-Length and Transfer-Encoding together: send only one of them" };
  }
  return { status: 400, message: `malformed HTTP request: ${reason}` };
}

/**
 * Answers a client error from Node's parser on the raw socket. The socket is half-closed after the answer and
 * destroyed shortly after, whatever the client does; unread input is discarded meanwhile.
 */
export function answerOnSocket(
  socket: Duplex,
  status: number,
  message: string,
  headers?: Record<string, string>,
): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.on("error", () => {});
  socket.end(rawErrorResponse(status, message, headers));
  socket.resume();
  setTimeout(() => socket.destroy(), 1_000).unref();
}
