// The HTTP server a rocketchat account listens on (WebhookBindAddress) for Rocket.Chat's outgoing webhook. Anyone
// who can reach the address can call it, so it follows the bridge's hostile-input rules, as the status endpoint
// does: POST only, a bounded JSON body, bounded connections and timeouts, the token checked, and every refusal a
// designed status with {"message"}. An accepted call is answered 200 with `{}`: Rocket.Chat posts the `text` of an
// answer back into the room, so the answer has none.
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { closeIdleConnectionsAfterReading } from "@switchboard/common";
import { answerOnSocket, describeClientError, errorBody } from "../../http/raw-answer.ts";
import { type OutgoingCall, readOutgoingCall } from "./outgoing-payload.ts";

/** An outgoing webhook call carries one message (Rocket.Chat's default maximum is 5,000 characters). */
const MAX_CALL_BYTES = 256 * 1024;
const LIMITS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, idleTimeoutMs: 5_000, maxConnections: 64 };
const JSON_TYPE = "application/json; charset=utf-8";

export interface OutgoingWebhookOptions {
  /** The outgoing webhook's token (Token); "" accepts any token, as Matterbridge does. */
  token: string;
  /** Takes an accepted call; a throw answers 500. */
  deliver(call: OutgoingCall): void;
  onError(error: unknown): void;
}

class CallError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function createOutgoingWebhookServer(options: OutgoingWebhookOptions): Server {
  const server = createServer(
    {
      requestTimeout: LIMITS.requestTimeoutMs,
      headersTimeout: LIMITS.headersTimeoutMs,
      keepAliveTimeout: LIMITS.idleTimeoutMs,
      // Node checks the timeouts on this interval (30 s by default, letting a slow client stay that much longer).
      connectionsCheckingInterval: 1_000,
    },
    (request, response) => {
      answer(request, options).then(
        () => send(response, 200, "{}"),
        (error: unknown) => {
          if (error instanceof CallError) {
            for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
            return send(response, error.status, errorBody(error.message));
          }
          options.onError(error);
          send(response, 500, errorBody("the bridge could not take this call; it is logged"));
        },
      );
    },
  );
  server.maxConnections = LIMITS.maxConnections;
  closeIdleConnectionsAfterReading(server);
  server.on("clientError", (error: Error & { code?: string }, socket) => {
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    const { status, message } = describeClientError(error);
    answerOnSocket(socket, status, message);
  });
  server.on("connect", (_request, socket) =>
    answerOnSocket(socket, 405, "CONNECT is not supported: this is a Rocket.Chat outgoing webhook's receiver", {
      Allow: "POST",
    }),
  );
  return server;
}

async function answer(request: IncomingMessage, options: OutgoingWebhookOptions): Promise<void> {
  if (request.method !== "POST") {
    drain(request);
    throw new CallError(405, "only POST: this address takes Rocket.Chat's outgoing webhook calls", { Allow: "POST" });
  }
  const type = (request.headers["content-type"] ?? "application/json").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    drain(request);
    throw new CallError(415, "the body must be JSON (Content-Type: application/json), as Rocket.Chat sends it");
  }
  const body = await readBody(request);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    throw new CallError(400, "the body is not JSON");
  }
  const call = readOutgoingCall(parsed);
  if (typeof call === "string") throw new CallError(400, call);
  if (call.token === "") throw new CallError(401, "no token: the call must carry the outgoing webhook's token");
  if (options.token !== "" && !sameToken(call.token, options.token)) {
    throw new CallError(403, "wrong token: set Token to the outgoing webhook's token");
  }
  options.deliver(call);
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The body, refused with 413 beyond MAX_CALL_BYTES (announced or sent); the rest of a refused body is dropped. */
function readBody(request: IncomingMessage): Promise<Buffer> {
  const tooLarge = () => new CallError(413, `the body is over ${MAX_CALL_BYTES} bytes`);
  if (Number(request.headers["content-length"] ?? 0) > MAX_CALL_BYTES) {
    drain(request);
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > 4 * MAX_CALL_BYTES) request.socket.destroy();
      else if (size > MAX_CALL_BYTES) {
        chunks.length = 0;
        reject(tooLarge());
      } else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
    // A client gone before the end: nobody reads the answer, the promise just ends.
    request.on("close", () => reject(new CallError(400, "the request ended early")));
  });
}

/**
 * Reads and drops the rest of a refused body, so a client still writing reads its answer; beyond a bound the
 * connection is closed instead.
 */
function drain(request: IncomingMessage): void {
  let discarded = 0;
  request.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > 4 * MAX_CALL_BYTES) request.socket.destroy();
  });
  request.on("error", () => {});
  request.resume();
}

function send(response: ServerResponse, status: number, body: string): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { "Content-Type": JSON_TYPE, "Content-Length": Buffer.byteLength(body) });
  response.end(body);
}
