// POST /v1/chat/completions straight from node:http, in front of fastify, for the ordinary request: a JSON content
// type as clients send it, a Content-Length within body_limit_bytes, no Transfer-Encoding, Expect or Upgrade, no
// query string, the server not closing. Every other request goes to fastify, whose route serves it with the same
// ChatServer after the same key checks (key-gate.ts): the same events, routing, dispatch, headers, answers and access
// line (test/fast-chat.test.ts holds the two paths equal).
//
// Why: fastify's request and reply objects, its hooks, router and content-type parser cost about a fifth of the
// gateway's CPU per request under load (docs/benchmarks.md, Gateway fast path), on the hottest route there is.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { JsonBody } from "../request/body.ts";
import { ApiError } from "../request/errors.ts";
import { envelopeOf } from "./api-envelope.ts";
import { DRAIN_LIMIT_BYTES, drainRequest } from "./drain.ts";
import { fromFrameworkError } from "./framework-errors.ts";
import { readJsonBody } from "./json-body.ts";
import { type KeyGate, modelOf, type Refusal } from "./key-gate.ts";
import type { JsonParseWorker } from "./parse-worker.ts";
import type { RequestTracker } from "./request-log.ts";
import type { ChatServer } from "./routes/chat.ts";
import { failRequest, sendRawError } from "./send.ts";

const PATH = "/v1/chat/completions";

/** Content-Type headers taken here, as clients send them; fastify's parser takes any other spelling. */
const JSON_TYPES = new Set(["application/json", "application/json; charset=utf-8", "application/json;charset=utf-8"]);

const LENGTH = /^[1-9][0-9]{0,9}$/;

export interface FastChatDeps {
  bodyLimit: number;
  clientTimeoutMs: number;
  parseWorker: JsonParseWorker;
  requestIdOf(request: IncomingMessage): string;
  track: RequestTracker;
  serve: ChatServer;
  /** The key checks, when [auth] is on. */
  gate: KeyGate | undefined;
  logger: Logger;
  isClosing(): boolean;
}

/** Serves the requests it takes; returns false for those fastify should handle. */
export type FastRoute = (request: IncomingMessage, res: ServerResponse) => boolean;

export function fastChat(deps: FastChatDeps): FastRoute {
  const { bodyLimit, parseWorker, track, serve, gate, logger } = deps;

  const refuse = (request: IncomingMessage, res: ServerResponse, requestId: string, refusal: Refusal, model = "") =>
    sendRawError(res, refusal.error, requestId, refusal.headers, envelopeOf(request, model));

  const read = (request: IncomingMessage, res: ServerResponse, requestId: string) =>
    readJsonBody(request, bodyLimit, parseWorker, { slim: true }).then(
      (body: JsonBody) => {
        if (gate === undefined) return serve(requestId, request, res, body);
        const model = modelOf(body.value);
        return gate.admit(request, res, model).then((refusal) => {
          if (refusal === undefined) return serve(requestId, request, res, body);
          refuse(request, res, requestId, refusal, model);
        });
      },
      (error: Error) => refuseBody(deps, request, res, requestId, error),
    );

  return (request, res) => {
    if (request.url !== PATH || request.method !== "POST") return false;
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
    track(request, res, requestId, "POST", PATH, "chat");
    const served =
      gate === undefined
        ? read(request, res, requestId)
        : gate.authenticate(request, PATH).then((refusal) => {
            if (refusal === undefined) return read(request, res, requestId);
            refuse(request, res, requestId, refusal);
          });
    // What fastify's error handler would answer for a check that failed unexpectedly (the store, say).
    served.catch((error: unknown) => failRequest(res, requestId, logger, error));
    return true;
  };
}

/** A body the reader refused, answered as fastify's error handler answers it (server.ts). */
function refuseBody(
  deps: FastChatDeps,
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
