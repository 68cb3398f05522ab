import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { closeIdleConnectionsAfterReading, noSchemaCompilers } from "@switchboard/common";
import Fastify, { type FastifyInstance } from "fastify";
import type { JsonBody } from "../request/body.ts";
import { ApiError } from "../request/errors.ts";
import { registerAuth } from "./auth.ts";
import type { GatewayContext } from "./context.ts";
import { DRAIN_LIMIT_BYTES, drainRequest } from "./drain.ts";
import { fastModelRoutes } from "./fast-model-routes.ts";
import { answerClientError, answerConnect, answerFrameworkError, fromFrameworkError } from "./framework-errors.ts";
import { RawIngress } from "./http1/raw-ingress.ts";
import { readJsonBody } from "./json-body.ts";
import { keyGate } from "./key-gate.ts";
import { registerModelRoute } from "./model-route.ts";
import { JsonParseWorker } from "./parse-worker.ts";
import { requestTracker, trackRequests } from "./request-log.ts";
import { registerAnthropicRoutes } from "./routes/anthropic.ts";
import { chatServer } from "./routes/chat.ts";
import { registerCompletionsRoutes } from "./routes/completions.ts";
import { refuseStrayUpgrades, registerDashboard } from "./routes/dashboard.ts";
import { embeddingsServer } from "./routes/embeddings.ts";
import { registerFleetRoutes } from "./routes/fleet.ts";
import { registerGeminiRoutes } from "./routes/gemini.ts";
import { registerInfoRoutes } from "./routes/info.ts";
import { registerKeyRoutes } from "./routes/keys.ts";
import { registerLifecycleRoutes } from "./routes/lifecycle.ts";
import { registerOllamaRoutes } from "./routes/ollama.ts";
import { registerResponsesRoutes } from "./routes/responses.ts";
import { sendError, sendRawError } from "./send.ts";

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Larger bodies of the model routes are read by node:http, which streams them to the same routes. */
const RAW_MAX_BODY_BYTES = 1024 * 1024;

/** Routes whose long texts may stay in the parse worker (see JsonBody.slim). */
const SLIM_ROUTES = new Set(["/v1/chat/completions", "/v1/embeddings"]);

/** The client's X-Request-Id when it is a sane one, else a new UUID. */
function requestIdOf(request: IncomingMessage): string {
  const given = request.headers["x-request-id"];
  return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Builds the HTTP server: JSON parsing with a body limit, the error envelope everywhere, and the routes. */

export function buildServer(context: GatewayContext): FastifyInstance {
  const { server: settings } = context.config;
  const clientTimeoutMs = settings.client_timeout_seconds * 1000;
  const parseWorker = new JsonParseWorker();
  const track = requestTracker(context.logger, context.events);
  const serveChat = chatServer(context);
  const serveEmbeddings = embeddingsServer(context);
  let closing = false;
  const gate = context.config.auth ? keyGate(context, context.config.auth) : undefined;
  const fast = fastModelRoutes({
    bodyLimit: settings.body_limit_bytes,
    clientTimeoutMs,
    parseWorker,
    requestIdOf,
    track,
    routes: new Map([
      ["/v1/chat/completions", { endpoint: "chat", serve: serveChat }],
      ["/v1/embeddings", { endpoint: "embeddings", serve: serveEmbeddings }],
    ]),
    gate,
    logger: context.logger,
    isClosing: () => closing,
  });
  const headersTimeoutMs = Math.min(clientTimeoutMs, 10_000);
  const keepAliveTimeoutMs = 65_000;
  // RawRequest and RawResponse carry the members of IncomingMessage and ServerResponse that the model routes use
  // (http1/raw-request.ts, raw-response.ts); test/raw-ingress.test.ts holds the answers equal to node:http's.
  const ingress = new RawIngress({
    paths: new Set(["/v1/chat/completions", "/v1/embeddings"]),
    maxBodyBytes: Math.min(settings.body_limit_bytes, RAW_MAX_BODY_BYTES),
    headersTimeoutMs,
    requestTimeoutMs: clientTimeoutMs,
    keepAliveTimeoutMs,
    serve: (request, response) => fast(request as unknown as IncomingMessage, response as unknown as ServerResponse),
    failed: (error) => context.logger.error({ err: error }, "request failed"),
  });
  const app = Fastify({
    // No framework logger: fastify then creates no per-request child logger. The gateway logs through its own pino
    // instance, with request ids where they matter (dispatch warnings, debug lines).
    logger: false,
    // The JSON reader enforces body_limit_bytes itself (and names it in the 413).
    bodyLimit: settings.body_limit_bytes,
    return503OnClosing: true,
    // What Node or fastify refuse before a route runs is answered in the envelope too.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    forceCloseConnections: "idle",
    genReqId: requestIdOf,
    schemaController: { compilersFactory: noSchemaCompilers("The gateway's HTTP server") },
    serverFactory: (handler) => {
      const toFastify = handler as (req: IncomingMessage, res: ServerResponse) => void;
      const server: Server = createServer(
        {
          requestTimeout: clientTimeoutMs,
          headersTimeout: headersTimeoutMs,
          connectionsCheckingInterval: Math.min(1_000, clientTimeoutMs),
          keepAliveTimeout: keepAliveTimeoutMs,
        },
        (req, res) => fast(req, res) || toFastify(req, res),
      );
      closeIdleConnectionsAfterReading(server);
      if (settings.raw_ingress) ingress.install(server);
      server.on("connect", (_request, socket) => answerConnect(socket));
      return server;
    },
  });

  // From the start of a stop, new requests get fastify's 503 (return503OnClosing).
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onClose", () => parseWorker.close());
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", (request, payload, done) => {
    // Chat completions and embeddings only forward their texts (or re-encode them from the client's bytes).
    const slim = SLIM_ROUTES.has(request.routeOptions.url ?? "");
    readJsonBody(payload, settings.body_limit_bytes, parseWorker, { slim }).then(
      (body: JsonBody) => done(null, body),
      (error: Error) => done(error, undefined),
    );
  });

  app.setErrorHandler((error, request, reply) => {
    // A body refused before it was read in full: the rest is drained (bounded), so that a client still sending can
    // read this answer. The answer is written on the raw response, as fast-model-routes.ts writes it: fastify would ask for
    // "connection: close" after any body it could not parse, which resets a client still sending and costs the others
    // a new connection.
    if (!request.raw.complete) drainRequest(request.raw, DRAIN_LIMIT_BYTES, clientTimeoutMs);
    const apiError =
      error instanceof ApiError
        ? error
        : fromFrameworkError(error as { statusCode?: number; code?: string; message: string });
    if (apiError.statusCode >= 500) context.logger.error({ err: error }, "request failed");
    const { connection: _, ...headers } = reply.getHeaders() as Record<string, string>;
    reply.hijack();
    sendRawError(reply.raw, apiError, String(request.id), headers);
  });
  app.setNotFoundHandler((request, reply) => {
    sendError(
      reply,
      new ApiError(
        404,
        `No route for ${request.method} ${request.url.split("?")[0]}`,
        "invalid_request_error",
        "not_found",
      ),
    );
  });

  trackRequests(app, track);
  refuseStrayUpgrades(app);
  // Before the routes: every route, later ones included, passes through authentication and the key's limits.
  if (gate) registerAuth(app, gate);
  registerKeyRoutes(app, context);
  registerModelRoute(app, "/v1/chat/completions", serveChat);
  registerModelRoute(app, "/v1/embeddings", serveEmbeddings);
  registerAnthropicRoutes(app, context);
  registerOllamaRoutes(app, context);
  registerResponsesRoutes(app, context, context.responses);
  registerCompletionsRoutes(app, context);
  registerGeminiRoutes(app, context);
  registerInfoRoutes(app, context);
  registerFleetRoutes(app, context);
  registerLifecycleRoutes(app, context);
  registerDashboard(app, context.dashboard);
  return app;
}
