// The status endpoint's HTTP server (node:http; two read-only routes need no framework). GET and HEAD only, no
// request body, bounded connections and timeouts: a scraper or a probe gets its answer, a hostile client gets a
// designed status (JSON {"message"}) and its connection closed.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { closeIdleConnectionsAfterReading } from "@switchboard/common";
import { answerOnSocket, describeClientError, errorBody } from "../http/raw-answer.ts";

export interface StatusServerLimits {
  /** The request line and headers must arrive within this (408 otherwise). */
  headersTimeoutMs: number;
  /** The whole request must arrive within this (408 otherwise). */
  requestTimeoutMs: number;
  /** A kept-alive connection with no request is closed after this. */
  idleTimeoutMs: number;
  /** Connections beyond this many are refused (closed at once). */
  maxConnections: number;
}

/** A scraper every few seconds and a probe or two: a few connections, answered at once. */
export const STATUS_SERVER_LIMITS: StatusServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 10_000,
  idleTimeoutMs: 5_000,
  maxConnections: 64,
};

export interface StatusAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** Path -> what answers it (GET and HEAD). */
export type StatusRoutes = ReadonlyMap<string, () => StatusAnswer | Promise<StatusAnswer>>;

const ALLOW = "GET, HEAD";
const JSON_TYPE = "application/json; charset=utf-8";
/** A body sent anyway is read and discarded up to this much (so the client reads its answer), then cut. */
const MAX_DISCARDED_BYTES = 1024 * 1024;

export function createStatusServer(
  routes: StatusRoutes,
  limits: StatusServerLimits,
  onError: (error: unknown) => void,
) {
  const server: Server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      keepAliveTimeout: limits.idleTimeoutMs,
      // Node checks the timeouts on this interval (30 s by default, letting a slow client stay that much longer).
      connectionsCheckingInterval: 1_000,
    },
    (request, response) => {
      answer(request, response, routes).catch((error: unknown) => {
        onError(error);
        if (!response.headersSent) send(response, 500, JSON_TYPE, errorBody("internal error"));
        else response.destroy();
      });
    },
  );
  server.maxConnections = limits.maxConnections;
  closeIdleConnectionsAfterReading(server);
  server.on("clientError", (error: Error & { code?: string }, socket) => {
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    const { status, message } = describeClientError(error);
    answerOnSocket(socket, status, message);
  });
  // A proxy tunnel is nothing this endpoint does; Node would otherwise drop the connection without a word.
  server.on("connect", (_request, socket) =>
    answerOnSocket(socket, 405, "CONNECT is not supported: this is the bridge's status endpoint", { Allow: ALLOW }),
  );
  return server;
}

async function answer(request: IncomingMessage, response: ServerResponse, routes: StatusRoutes): Promise<void> {
  const path = (request.url ?? "/").split("?")[0] ?? "";
  const route = routes.get(path);
  const hasBody =
    request.headers["transfer-encoding"] !== undefined || (request.headers["content-length"] ?? "0") !== "0";
  // Whatever the answer, a body sent anyway is read and dropped, so a client still writing can read it.
  if (hasBody) discardBody(request);
  if (route === undefined) {
    const known = [...routes.keys()].join(", ");
    return send(response, 404, JSON_TYPE, errorBody(`no such path; the status endpoint serves ${known}`));
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.setHeader("Allow", ALLOW);
    return send(response, 405, JSON_TYPE, errorBody(`${path} answers GET and HEAD only`));
  }
  if (hasBody) return send(response, 413, JSON_TYPE, errorBody(`${request.method} ${path} takes no request body`));
  const { status, contentType, body } = await route();
  send(response, status, contentType, body);
}

/**
 * Reads and drops a request body up to MAX_DISCARDED_BYTES; beyond it the connection is closed (closing while the
 * client still writes resets the connection, so a body is read rather than refused unread).
 */
function discardBody(request: IncomingMessage): void {
  let discarded = 0;
  request.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARDED_BYTES) request.socket.destroy();
  });
  request.on("error", () => {});
  request.resume();
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, {
    "Content-Type": contentType,
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
  });
  // Node leaves the body out of an answer to HEAD.
  response.end(body);
}
