// The checks ws makes on an upgrade request (RFC 6455 section 4.2.1), done first so that a refused handshake is
// answered in this API's error format rather than ws's plain text.
import type { IncomingHttpHeaders } from "node:http";

const KEY = /^[+/0-9A-Za-z]{22}==$/;

export function websocketHandshakeProblem(headers: IncomingHttpHeaders): string | undefined {
  if (headers.upgrade?.toLowerCase() !== "websocket") return 'Upgrade must be "websocket"';
  if (!KEY.test(headers["sec-websocket-key"] ?? "")) return "missing or invalid Sec-WebSocket-Key header";
  const version = headers["sec-websocket-version"];
  if (version !== "13" && version !== "8") return "unsupported Sec-WebSocket-Version: use 13";
  return undefined;
}
