import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonBody } from "../request/body.ts";

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
