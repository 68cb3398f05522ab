import type { FastifyInstance, FastifyReply } from "fastify";
import { readKeyFields } from "../../access/key-body.ts";
import type { JsonBody } from "../../request/body.ts";
import { ApiError, invalidRequest, stateStoreUnavailable } from "../../request/errors.ts";
import type { GatewayContext } from "../context.ts";
import { sendError, sendJson } from "../send.ts";

const keyNotFound = (id: string) =>
  new ApiError(404, `No key with id "${id.slice(0, 128)}"`, "invalid_request_error", "key_not_found", "id");

/**
 * The admin API (the master key only; http/auth.ts sees to that): POST /v1/keys makes a key and shows its secret
 * once; GET lists and shows keys with their usage, never a secret; PATCH changes a key; DELETE revokes it.
 */
export function registerKeyRoutes(app: FastifyInstance, context: GatewayContext): void {
  const access = context.access;
  if (!access) {
    const off = async (_request: unknown, reply: FastifyReply) =>
      sendError(
        reply,
        new ApiError(
          404,
          "Keys are off on this gateway: set [auth] master_key_env to turn authentication and the admin API on",
          "invalid_request_error",
          "auth_disabled",
        ),
      );
    app.all("/v1/keys", off);
    app.all("/v1/keys/*", off);
    return;
  }
  const { keys } = access;
  /** The store may be unreachable (Redis): a designed 503, never a 500. */
  const guarded =
    (handler: (params: { id: string; body: unknown }, reply: FastifyReply) => Promise<void>) =>
    async (request: { params: unknown; body: unknown }, reply: FastifyReply) => {
      const id = (request.params as { id?: string }).id ?? "";
      try {
        await handler({ id, body: (request.body as JsonBody | undefined)?.value }, reply);
      } catch (error) {
        if (error instanceof ApiError) return sendError(reply, error);
        context.logger.warn({ err: error }, "the state store did not answer an admin API request");
        sendError(reply, stateStoreUnavailable(), { "retry-after": "1" });
      }
    };

  app.post(
    "/v1/keys",
    guarded(async ({ body }, reply) => {
      if (body === undefined) return sendError(reply, invalidRequest("Request body is required", null, "invalid_json"));
      const fields = readKeyFields(body, "create");
      if (fields instanceof ApiError) return sendError(reply, fields);
      const { key, secret } = await keys.create(fields);
      context.logger.info({ keyId: key.id, keyName: key.name }, `key "${key.name}" (${key.id}) created`);
      sendJson(reply, { ...(await keys.view(key)), key: secret }, 201);
    }),
  );
  app.get(
    "/v1/keys",
    guarded(async (_params, reply) => {
      const list = await keys.list();
      list.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
      sendJson(reply, { object: "list", data: await Promise.all(list.map((key) => keys.view(key))) });
    }),
  );
  app.get(
    "/v1/keys/:id",
    guarded(async ({ id }, reply) => {
      const key = await keys.get(id);
      if (!key) return sendError(reply, keyNotFound(id));
      sendJson(reply, await keys.view(key));
    }),
  );
  app.patch(
    "/v1/keys/:id",
    guarded(async ({ id, body }, reply) => {
      if (body === undefined) return sendError(reply, invalidRequest("Request body is required", null, "invalid_json"));
      const fields = readKeyFields(body, "patch");
      if (fields instanceof ApiError) return sendError(reply, fields);
      const key = await keys.update(id, fields);
      if (!key) return sendError(reply, keyNotFound(id));
      context.logger.info({ keyId: key.id, keyName: key.name }, `key "${key.name}" (${key.id}) changed`);
      sendJson(reply, await keys.view(key));
    }),
  );
  app.delete(
    "/v1/keys/:id",
    guarded(async ({ id }, reply) => {
      if (!(await keys.revoke(id))) return sendError(reply, keyNotFound(id));
      context.logger.info({ keyId: id }, `key ${id} revoked`);
      sendJson(reply, { id, object: "api_key", deleted: true });
    }),
  );
}
