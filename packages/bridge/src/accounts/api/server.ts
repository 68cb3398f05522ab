// The HTTP side of an api account: routes, auth, designed errors. State lives in the account (index.ts).

import type { ServerResponse } from "node:http";
import websocket from "@fastify/websocket";
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from "fastify";
import type { Logger } from "pino";
import { connectedEvent, encodeMessage } from "../../message.ts";
import { bearerChecker } from "./auth.ts";
import { describeFastifyError, sendError } from "./errors.ts";
import { InboundError } from "./inbound.ts";
import type { WebsocketClients } from "./websocket.ts";

export interface ApiServerDeps {
  accountId: string;
  token: string | undefined;
  bodyLimit: number;
  logger: Logger;
  debug: boolean;
  /** Read-and-clear of the polling buffer, as encoded messages. */
  drain(): string[];
  /** Messages the buffer dropped because it was full, over the account's life. */
  dropped(): number;
  /** Validates and routes a posted message; returns the resulting Message encoded, or throws InboundError. */
  post(text: string): { encoded: string; deliveries: number };
  addStream(response: ServerResponse): void;
  websockets: WebsocketClients;
}

const ROUTES: Record<string, string[]> = {
  "/api/health": ["GET", "HEAD"],
  "/api/messages": ["GET", "HEAD"],
  "/api/stream": ["GET", "HEAD"],
  "/api/websocket": ["GET", "HEAD"],
  "/api/message": ["POST"],
};
const ALL_METHODS = ["DELETE", "GET", "HEAD", "PATCH", "POST", "PUT", "OPTIONS"];

const JSON_TYPE = "application/json; charset=utf-8";

export async function buildApiServer(deps: ApiServerDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: deps.bodyLimit,
    forceCloseConnections: true,
    return503OnClosing: true,
    // Clients that open a connection and never finish their request are not kept forever.
    requestTimeout: 60_000,
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string", bodyLimit: deps.bodyLimit }, (_req, body, done) =>
    done(null, body),
  );

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, message } = describeFastifyError(error, deps.bodyLimit);
    if (status >= 500) deps.logger.error({ err: error, url: request.url }, "request failed");
    return sendError(reply, status, message);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      404,
      `no route ${request.method} ${request.url.split("?")[0]}; see ${Object.keys(ROUTES).join(", ")}`,
    ),
  );

  // An upgrade request answered over HTTP (refused, 404...) has left the HTTP server's connection tracking:
  // its socket is closed here once the answer is written, so it cannot linger or hold up shutdown.
  app.addHook("onRequest", (request, reply, done) => {
    if (request.headers.upgrade !== undefined) {
      reply.header("connection", "close");
      reply.raw.once("finish", () => request.raw.socket.destroy());
    }
    done();
  });

  if (deps.token !== undefined && deps.token !== "") {
    const check = bearerChecker(deps.token);
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
    if (request.method === "HEAD") {
      response.end();
      return;
    }
    deps.addStream(response);
  });

  app.route({
    method: "GET",
    url: "/api/websocket",
    handler: (_request, reply) =>
      sendError(reply, 426, "this is a WebSocket endpoint: connect with a WebSocket client"),
    wsHandler: (socket) => deps.websockets.accept(socket),
  });

  app.post("/api/message", (request, reply) => {
    if (typeof request.body !== "string") {
      return sendError(reply, 415, "unsupported Content-Type: send the body as Content-Type: application/json");
    }
    try {
      const { encoded, deliveries } = deps.post(request.body);
      return reply.type(JSON_TYPE).header("x-switchboard-deliveries", String(deliveries)).send(encoded);
    } catch (error) {
      if (error instanceof InboundError) return sendError(reply, error.status, error.message);
      throw error;
    }
  });

  for (const [url, allowed] of Object.entries(ROUTES)) {
    const others = ALL_METHODS.filter((method) => !allowed.includes(method));
    app.route({
      method: others,
      url,
      handler: (request, reply: FastifyReply) =>
        sendError(
          reply.header("Allow", allowed.join(", ")),
          405,
          `${request.method} is not allowed on ${url}; use ${allowed.join(" or ")}`,
        ),
    });
  }
  return app;
}
