import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { JsonBody } from "../request/body.ts";
import { failRequest } from "./send.ts";

/**
 * Serves one request of a model route (chat completions, embeddings) whose body has been read, on the raw response:
 * called by fastify's route and by fast-model-routes.ts alike. It answers every outcome itself, failures included.
 */
export type ModelRouteServer = (
  requestId: string,
  request: IncomingMessage,
  res: ServerResponse,
  parsed: JsonBody | undefined,
) => Promise<void>;

/** The route's handler, with anything it throws answered (a 500, or the connection closed): never left hanging. */
export function answeringFailures(logger: Logger, serve: ModelRouteServer): ModelRouteServer {
  return (requestId, request, res, parsed) =>
    serve(requestId, request, res, parsed).catch((error: unknown) => failRequest(res, requestId, logger, error));
}

/** The model route through fastify: the requests fast-model-routes.ts did not take, on the raw response. */
export function registerModelRoute(app: FastifyInstance, path: string, serve: ModelRouteServer): void {
  app.post(path, (request, reply) => {
    reply.hijack();
    return serve(String(request.id), request.raw, reply.raw, request.body as JsonBody | undefined);
  });
}
