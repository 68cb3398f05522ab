// The HTTP side of an api account: routes, auth, designed errors. State lives in the account (index.ts).

import type { IncomingMessage, ServerResponse } from "node:http";
import websocket from "@fastify/websocket";
import { closeIdleConnectionsAfterReading, noSchemaCompilers } from "@switchboard/common";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from "fastify";
import type { Logger } from "pino";
import { connectedEvent, encodeMessage } from "../../message.ts";
import { bearerChecker } from "./auth.ts";
import { BodyTooLargeError, bodyParser, isPostedBody, type PostedBody } from "./body-reader.ts";
import {
  answerOnSocket,
  describeClientError,
  describeFastifyError,
  sendError,
  UNSUPPORTED_MEDIA_TYPE,
} from "./errors.ts";
import { fastPost } from "./fast-post.ts";
import { InboundError } from "./inbound.ts";
import { largeBodyTurn } from "./large-body-turns.ts";
import { PostOrder } from "./post-order.ts";
import { installRawIngress } from "./raw-ingress.ts";
import { requestLogger } from "./request-log.ts";
import type { ServerLimits } from "./server-limits.ts";
import type { WebsocketClients } from "./websocket.ts";
import { websocketHandshakeProblem } from "./websocket-handshake.ts";

export interface ApiServerDeps {
  accountId: string;
  token: string | undefined;
  bodyLimit: number;
  limits: ServerLimits;
  /** The ordinary POST /api/message read straight off the connection (raw-ingress.ts). */
  rawIngress: boolean;
  logger: Logger;
  debug: boolean;
  /** Read-and-clear of the polling buffer, as encoded messages. */
  drain(): string[];
  /** Messages the buffer dropped because it was full, over the account's life. */
  dropped(): number;
  /** Validates and routes a posted message; returns the resulting Message encoded, or throws InboundError. */
  post(body: PostedBody): { encoded: string; deliveries: number };
  /** Resolves once what was posted so far is in the state file (the turn's posts share one commit). */
  written(): Promise<void>;
  addStream(response: ServerResponse): void;
  websockets: WebsocketClients;
  /** Where a stop stands (see ServingPhase). */
  phase(): ServingPhase;
  /** The Retry-After of a 503 during a stop, in seconds. */
  retryAfterSeconds(): number;
}

/**
 * serving: normal. draining (the bridge is stopping and its queues drain): posted messages are refused with 503,
 * reads go on. closing (the account disconnects): every new request is refused. Answers given in either stopping
 * phase close their connection, so that idle keep-alive clients do not hold up the stop.
 */
export type ServingPhase = "serving" | "draining" | "closing";

const SHUTTING_DOWN = "the bridge is shutting down and takes no new messages; retry once it is back";
const WEBSOCKET_PATH = "/api/websocket";
const UPGRADE_ONLY_FOR_WEBSOCKET = `Upgrade is only accepted on GET ${WEBSOCKET_PATH}: send this request without Upgrade`;

/** Path -> the methods it answers; every other method gets 405 with Allow. */
const ROUTES: ReadonlyMap<string, readonly string[]> = new Map([
  ["/api/health", ["GET", "HEAD"]],
  ["/api/messages", ["GET", "HEAD"]],
  ["/api/stream", ["GET", "HEAD"]],
  [WEBSOCKET_PATH, ["GET", "HEAD"]],
  ["/api/message", ["POST"]],
]);

const JSON_TYPE = "application/json; charset=utf-8";

/** Whether Node's parser took the request as an upgrade (it sets `upgrade`, which @types/node does not declare). */
const isUpgrade = (request: IncomingMessage) => (request as IncomingMessage & { upgrade?: boolean }).upgrade === true;

export async function buildApiServer(deps: ApiServerDeps): Promise<FastifyInstance> {
  const { limits } = deps;
  const logRequest = requestLogger(deps.logger);
  const check = deps.token !== undefined && deps.token !== "" ? bearerChecker(deps.token) : undefined;
  const app = Fastify({
    logger: false,
    bodyLimit: deps.bodyLimit,
    // In-flight requests may finish when the account stops; idle connections are closed at once.
    forceCloseConnections: "idle",
    return503OnClosing: false,
    schemaController: { compilersFactory: noSchemaCompilers("The api account's HTTP server") },
    requestTimeout: limits.readTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    http: {
      headersTimeout: limits.readHeaderTimeoutMs,
      // Node checks both timeouts on this interval (30 s by default, which would let a slow client stay 30 s more).
      connectionsCheckingInterval: Math.min(1_000, limits.readHeaderTimeoutMs),
      // HTTP/1.1 requests without Host are answered in this API's format below rather than by Node.
      requireHostHeader: false,
    },
    clientErrorHandler: (error, socket) => {
      if ((error as NodeJS.ErrnoException).code === "ECONNRESET" || socket.destroyed) return;
      const { status, message } = describeClientError(error);
      if (deps.debug) deps.logger.debug({ code: (error as NodeJS.ErrnoException).code, status }, "bad request");
      answerOnSocket(socket, status, message);
    },
    frameworkErrors: (error, _request, reply) => {
      const { status, message } = describeFastifyError(error, deps.accountId);
      sendError(reply, status, message);
    },
  });
  app.server.maxConnections = limits.maxConnections;
  closeIdleConnectionsAfterReading(app.server);
  // The ordinary POST /api/message is served before fastify sees it (fast-post.ts); the rest is fastify's. The posts of
  // a connection are routed in the order they were read, whichever serves them.
  const order = new PostOrder();
  const fast = fastPost({
    order,
    bodyLimit: deps.bodyLimit,
    check,
    logger: deps.logger,
    isServing: () => deps.phase() === "serving",
    retryAfterSeconds: deps.retryAfterSeconds,
    shuttingDownMessage: SHUTTING_DOWN,
    post: deps.post,
    written: deps.written,
  });
  const fastifyListeners = app.server.listeners("request");
  if (fastifyListeners.length !== 1) throw new Error("api server: fastify's request listener was not found");
  const fastifyHandler = fastifyListeners[0] as (request: IncomingMessage, response: ServerResponse) => void;
  app.server.removeAllListeners("request");
  app.server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    if (fast.fromNode(request, response)) return;
    if (request.method === "POST") order.joinFastify(request, response);
    fastifyHandler(request, response);
  });
  // In front of node:http: the ordinary post is read off the connection, anything else goes to the listener above.
  if (deps.rawIngress) installRawIngress(app.server, fast, deps);
  // CONNECT (a proxy tunnel) is not something this API does; Node would otherwise drop the connection silently.
  app.server.on("connect", (_request, socket) =>
    answerOnSocket(socket, 405, "CONNECT is not supported: this is the chat bridge message API", {
      Allow: "GET, HEAD, POST",
    }),
  );

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", bodyParser("json", deps.bodyLimit));
  app.addContentTypeParser("application/x-www-form-urlencoded", bodyParser("form", deps.bodyLimit));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // fastify asks to close the connection after a body error; that would reset a client still writing its body
    // before it reads the 413. The rest of the body is discarded instead (bounded) and the connection kept.
    if (error instanceof BodyTooLargeError) reply.removeHeader("connection");
    const { status, message } = describeFastifyError(error, deps.accountId);
    if (status >= 500) deps.logger.error({ err: error, url: request.url }, "request failed");
    return sendError(reply, status, message);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "";
    const allowed = ROUTES.get(path);
    if (allowed !== undefined) {
      return sendError(
        reply.header("Allow", allowed.join(", ")),
        405,
        `${request.method} is not allowed on ${path}; use ${allowed.join(" or ")}`,
      );
    }
    return sendError(reply, 404, `no route ${request.method} ${path}; see ${[...ROUTES.keys()].join(", ")}`);
  });

  app.addHook("onResponse", (request, reply, done) => {
    logRequest(request.method, request.url, reply.statusCode, reply.elapsedTime);
    done();
  });
  const refuseWhileStopping = (reply: FastifyReply) =>
    sendError(reply.header("Retry-After", String(deps.retryAfterSeconds())), 503, SHUTTING_DOWN);
  // Answers given while stopping close their connection, so shutdown does not wait for idle keep-alive clients.
  // A post answered is routed or refused: the posts behind it on its connection go on.
  app.addHook("onSend", (request, reply, payload, done) => {
    if (request.method === "POST") order.leaveFastify(request.raw);
    if (deps.phase() !== "serving") reply.header("connection", "close");
    done(null, payload);
  });

  app.addHook("onRequest", (request, reply, done) => {
    const phase = deps.phase();
    // A POST is new work (the only route it reaches posts a message); reads may go on while the queues drain.
    if (phase === "closing" || (phase === "draining" && request.method === "POST")) return refuseWhileStopping(reply);
    if (request.raw.httpVersion === "1.1" && request.headers.host === undefined) {
      return sendError(reply, 400, "missing Host header (required by HTTP/1.1)");
    }
    // An upgrade request answered over HTTP (refused, 404...) has left the HTTP server's connection tracking:
    // its socket is closed here once the answer is written, so it cannot linger or hold up shutdown.
    if (request.headers.upgrade !== undefined) {
      reply.header("connection", "close");
      reply.raw.once("finish", () => request.raw.socket.destroy());
      // Node hands an upgrade's body to the upgrade, not the request: a POST would wait for its body forever, and ws
      // would refuse other methods in its own plain format. Only the websocket route takes an upgrade.
      if (isUpgrade(request.raw) && (request.method !== "GET" || request.routeOptions.url !== WEBSOCKET_PATH)) {
        return sendError(reply, 400, UPGRADE_ONLY_FOR_WEBSOCKET);
      }
    }
    done();
  });

  if (check !== undefined) {
    app.addHook("onRequest", (request, reply, done) => {
      const result = check(request.headers.authorization);
      if (result.ok) return done();
      reply.header("WWW-Authenticate", "Bearer");
      sendError(reply, 401, result.message);
    });
  }

  await app.register(websocket, { options: { maxPayload: deps.bodyLimit } });

  app.get("/api/health", (_request, reply) => reply.type("text/plain; charset=utf-8").send("OK"));

  app.get("/api/messages", (_request, reply) =>
    reply
      .type(JSON_TYPE)
      .header("x-switchboard-dropped", String(deps.dropped()))
      .send(`[${deps.drain().join(",")}]`),
  );

  app.get("/api/stream", (request, reply) => {
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache" });
    response.write(`${encodeMessage(connectedEvent())}\n`);
    // A stream is one long request: its line is logged when it ends.
    const startedAt = performance.now();
    response.once("close", () => logRequest(request.method, request.url, 200, performance.now() - startedAt));
    if (request.method === "HEAD") {
      response.end();
      return;
    }
    deps.addStream(response);
  });

  app.route({
    method: "GET",
    url: WEBSOCKET_PATH,
    // ws would answer a bad handshake in plain text; it is refused here in this API's format first.
    preHandler: (request, reply, done) => {
      if (request.headers.upgrade === undefined) return done();
      const problem = websocketHandshakeProblem(request.headers);
      if (problem === undefined) return done();
      sendError(reply, 400, problem);
    },
    handler: (_request, reply) =>
      sendError(reply, 426, "this is a WebSocket endpoint: connect with a WebSocket client"),
    wsHandler: (socket, request) => {
      const startedAt = performance.now();
      socket.once("close", () => logRequest(request.method, request.url, 101, performance.now() - startedAt));
      deps.websockets.accept(socket);
    },
  });

  app.post("/api/message", async (request, reply) => {
    if (!isPostedBody(request.body)) return sendError(reply, 415, UNSUPPORTED_MEDIA_TYPE);
    // Awaited only for a large body: awaiting undefined would still cost every post a trip through the microtasks.
    const turn = largeBodyTurn(request.body.bytes.length);
    if (turn !== undefined) await turn;
    const body = request.body;
    try {
      // After the posts read before it on its connection. One whose body was still arriving when the stop began is
      // refused too: nothing is routed after the signal.
      const routing = order.routeInTurn(request.raw, () => (deps.phase() === "serving" ? deps.post(body) : undefined));
      const posted = routing instanceof Promise ? await routing : routing;
      if (posted === undefined) return refuseWhileStopping(reply);
      const { encoded, deliveries } = posted;
      // Never answered before the message is in the state file (the durability rule); a failed commit is a 500.
      await deps.written();
      return reply.type(JSON_TYPE).header("x-switchboard-deliveries", String(deliveries)).send(encoded);
    } catch (error) {
      if (error instanceof InboundError) return sendError(reply, error.status, error.message);
      throw error;
    }
  });

  return app;
}
