// POST /v1/chat/completions and /v1/embeddings straight from node:http, in front of fastify, for the ordinary request:
// a JSON content type as clients send it, a Content-Length within body_limit_bytes, no Transfer-Encoding, Expect or
// Upgrade, no query string, the server not closing. Every other request goes to fastify, whose routes serve it with
// the same ModelRouteServer after the same key checks (key-gate.ts): the same events, routing, dispatch, headers,
// answers and access line (test/fast-model-routes.test.ts holds the two paths equal).
//
// Why: fastify's request and reply objects, its hooks, router and content-type parser sit on the path of every
// request of the two routes that carry the gateway's traffic (docs/benchmarks.md, Gateway fast path).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { JsonBody } from "../request/body.ts";
import { ApiError } from "../request/errors.ts";
import type { Endpoint } from "../request/facts.ts";
import { envelopeOf } from "./api-envelope.ts";
import { DRAIN_LIMIT_BYTES, drainRequest } from "./drain.ts";
import { fromFrameworkError } from "./framework-errors.ts";
import { readJsonBody, takeWholeJsonBody } from "./json-body.ts";
import { type KeyGate, modelOf, type Refusal } from "./key-gate.ts";
import type { ModelRouteServer } from "./model-route.ts";
import type { JsonParseWorker } from "./parse-worker.ts";
import type { RequestTracker } from "./request-log.ts";
import { failRequest, sendRawError } from "./send.ts";

/**
 * Content-Type headers taken here (and by the raw ingress, http1/request-head.ts), as clients send them; fastify's
 * parser takes any other spelling.
 */
export const JSON_TYPES: ReadonlySet<string> = new Set([
  "application/json",
  "application/json; charset=utf-8",
  "application/json;charset=utf-8",
]);

const LENGTH = /^[1-9][0-9]{0,9}$/;

export interface FastRouteDeps {
  bodyLimit: number;
  clientTimeoutMs: number;
  parseWorker: JsonParseWorker;
  requestIdOf(request: IncomingMessage): string;
  track: RequestTracker;
  /** The routes taken here, by path. */
  routes: ReadonlyMap<string, { endpoint: Endpoint; serve: ModelRouteServer }>;
  /** The key checks, when [auth] is on. */
  gate: KeyGate | undefined;
  logger: Logger;
  isClosing(): boolean;
}

/** Serves the requests it takes; returns false for those fastify should handle. */
export type FastRoute = (request: IncomingMessage, res: ServerResponse) => boolean;

export function fastModelRoutes(deps: FastRouteDeps): FastRoute {
  const { bodyLimit, parseWorker, track, routes, gate, logger } = deps;

  const refuse = (request: IncomingMessage, res: ServerResponse, requestId: string, refusal: Refusal, model = "") =>
    sendRawError(res, refusal.error, requestId, refusal.headers, envelopeOf(request, model));

  const admit = (
    request: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    serve: ModelRouteServer,
    body: JsonBody,
  ) => {
    if (gate === undefined) return serve(requestId, request, res, body);
    const model = modelOf(body.value);
    return gate.admit(request, res, model).then((refusal) => {
      if (refusal === undefined) return serve(requestId, request, res, body);
      refuse(request, res, requestId, refusal, model);
    });
  };

  const read = (
    request: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    serve: ModelRouteServer,
  ): Promise<void> => {
    // A body the raw ingress read whole is taken at once; any other is read as a stream.
    const whole = takeWholeJsonBody(request, bodyLimit);
    if (whole === undefined) {
      return readJsonBody(request, bodyLimit, parseWorker, { slim: true }).then(
        (body: JsonBody) => admit(request, res, requestId, serve, body),
        (error: Error) => refuseBody(deps, request, res, requestId, error),
      );
    }
    if (whole instanceof ApiError) {
      refuseBody(deps, request, res, requestId, whole);
      return Promise.resolve();
    }
    return admit(request, res, requestId, serve, whole);
  };

  return (request, res) => {
    const route = request.method === "POST" ? routes.get(request.url ?? "") : undefined;
    if (route === undefined) return false;
    const headers = request.headers;
    const length = headers["content-length"];
    if (
      length === undefined ||
      !LENGTH.test(length) ||
      Number(length) > bodyLimit ||
      !JSON_TYPES.has(headers["content-type"] ?? "") ||
      headers["transfer-encoding"] !== undefined ||
      headers.expect !== undefined ||
      headers.upgrade !== undefined ||
      deps.isClosing()
    ) {
      return false;
    }
    const requestId = deps.requestIdOf(request);
    const path = request.url as string;
    track(request, res, requestId, "POST", path, route.endpoint);
    let served: Promise<void>;
    try {
      served =
        gate === undefined
          ? read(request, res, requestId, route.serve)
          : gate.authenticate(request, path).then((refusal) => {
              if (refusal === undefined) return read(request, res, requestId, route.serve);
              refuse(request, res, requestId, refusal);
            });
    } catch (error) {
      // Read at once, a body's checks run here: what they throw is answered as when they ran in a promise.
      served = Promise.reject(error);
    }
    // What fastify's error handler would answer for a check that failed unexpectedly (the store, say).
    served.catch((error: unknown) => failRequest(res, requestId, logger, error));
    return true;
  };
}

/** A body the reader refused, answered as fastify's error handler answers it (server.ts). */
function refuseBody(
  deps: FastRouteDeps,
  request: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  error: Error,
): void {
  // The rest of a body refused early is drained (bounded), so that a client still sending can read the answer.
  if (!request.complete) drainRequest(request, DRAIN_LIMIT_BYTES, deps.clientTimeoutMs);
  const apiError = error instanceof ApiError ? error : fromFrameworkError(error);
  if (apiError.statusCode >= 500) deps.logger.error({ err: error }, "request failed");
  if (!res.headersSent && !res.destroyed) sendRawError(res, apiError, requestId);
}
