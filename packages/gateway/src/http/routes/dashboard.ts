import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import websocket from "@fastify/websocket";
import type { FastifyInstance } from "fastify";
import type { DashboardHub } from "../../dashboard/hub.ts";
import { ApiError } from "../../request/errors.ts";
import { sendError } from "../send.ts";

/** The page's files, shipped in the package's `dashboard/` folder (next to `dist/` and `src/`), read once. */
const ASSETS = new Map(
  [
    ["/", "index.html", "text/html; charset=utf-8"],
    ["/dashboard/app.js", "app.js", "text/javascript; charset=utf-8"],
    ["/dashboard/style.css", "style.css", "text/css; charset=utf-8"],
  ].map(([path, file, type]) => [
    path!,
    { body: readFileSync(new URL(`../../../dashboard/${file}`, import.meta.url)), type: type! },
  ]),
);

const DASHBOARD_SOCKET_PATH = "/v1/dashboard/socket";

const KEY = /^[+/0-9A-Za-z]{22}==$/;

/** ws's own checks on an upgrade (RFC 6455 §4.2.1), made first so a refusal comes in the gateway's error format. */
function handshakeProblem(headers: IncomingHttpHeaders): string | undefined {
  if (headers.upgrade?.toLowerCase() !== "websocket") return 'Upgrade must be "websocket"';
  if (!KEY.test(headers["sec-websocket-key"] ?? "")) return "missing or invalid Sec-WebSocket-Key header";
  if (headers["sec-websocket-version"] !== "13") return "unsupported Sec-WebSocket-Version: use 13";
  return undefined;
}

/** Whether node:http took the request as an upgrade (it sets `upgrade`, which @types/node does not declare). */
const isUpgrade = (request: IncomingMessage) => (request as IncomingMessage & { upgrade?: boolean }).upgrade === true;

/**
 * An upgrade request has left node:http's keep-alive handling and its body went to the upgrade, not the request: it is
 * answered on a connection that then closes, and only the dashboard's socket accepts one. Without this, a POST with
 * `Connection: Upgrade` was answered "body is empty" and its connection stayed open until the client left.
 */
export function refuseStrayUpgrades(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    if (!isUpgrade(request.raw)) return done();
    reply.header("connection", "close");
    reply.raw.once("finish", () => request.raw.socket.destroy());
    if (request.method === "GET" && request.routeOptions.url === DASHBOARD_SOCKET_PATH) return done();
    const message = `Upgrade is only accepted on GET ${DASHBOARD_SOCKET_PATH}; send this request without Upgrade`;
    sendError(reply, new ApiError(400, message, "invalid_request_error", "upgrade_not_supported"));
  });
}

/** GET / (the page), its two files, and the live socket the page reads. */
export function registerDashboard(app: FastifyInstance, hub: DashboardHub): void {
  for (const [path, asset] of ASSETS) {
    app.get(path, async (_request, reply) => {
      reply.header("content-type", asset.type).header("cache-control", "no-cache").send(asset.body);
    });
  }
  app.register(async (scope) => {
    // The page sends nothing; a frame larger than this is refused by ws itself.
    await scope.register(websocket, { options: { maxPayload: 1024 } });
    scope.route({
      method: "GET",
      url: DASHBOARD_SOCKET_PATH,
      preHandler: (request, reply, done) => {
        if (request.headers.upgrade === undefined) return done();
        const problem = handshakeProblem(request.headers);
        if (problem !== undefined) {
          return sendError(reply, new ApiError(400, problem, "invalid_request_error", "invalid_websocket_handshake"));
        }
        if (!hub.full) return done();
        reply.header("retry-after", "5");
        sendError(
          reply,
          new ApiError(
            503,
            `The dashboard has ${hub.settings.maxClients} clients connected, its limit ([server] dashboard_max_clients); try again later`,
            "server_error",
            "dashboard_full",
          ),
        );
      },
      handler: (_request, reply) =>
        sendError(
          reply,
          new ApiError(
            426,
            "This is the dashboard's WebSocket: connect with a WebSocket client",
            "invalid_request_error",
            "upgrade_required",
          ),
        ),
      wsHandler: (socket) => hub.accept(socket),
    });
  });
}
