import type { FastifyInstance, FastifyReply } from "fastify";
import { type LifecycleRefusal, refused } from "../../lifecycle/manager.ts";
import type { OperationView } from "../../telemetry/events.ts";
import type { GatewayContext, JsonBody } from "../context.ts";
import { ApiError, invalidRequest } from "../errors.ts";
import { sendError, sendJson } from "../send.ts";

/** The operation as the API shows it (snake_case, like every other body). */
function operationBody(view: OperationView): Record<string, unknown> {
  return {
    id: view.id,
    object: "model.operation",
    type: view.type,
    model: view.model,
    backend: view.backend,
    from: view.from ?? null,
    status: view.status,
    progress: view.progress ?? null,
    detail: view.detail ?? null,
    error: view.error ?? null,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
    completed_at: view.completedAt ?? null,
  };
}

const TYPES: Record<LifecycleRefusal["status"], string> = {
  404: "invalid_request_error",
  409: "conflict_error",
  501: "not_implemented_error",
  502: "api_error",
};

/** 202 with the operation and where to poll it, or the refusal in the error envelope. */
function answer(reply: FastifyReply, started: OperationView | LifecycleRefusal): void {
  if (refused(started)) {
    sendError(reply, new ApiError(started.status, started.message, TYPES[started.status], started.code));
    return;
  }
  reply.header("location", `/v1/models/operations/${started.id}`).header("x-gateway-operation-id", started.id);
  sendJson(reply, operationBody(started), 202);
}

/** The named string fields of a JSON body, or a 400 naming the first one missing or wrong. */
function fields(body: unknown, names: readonly string[]): Record<string, string> | ApiError {
  const value = (body as JsonBody | undefined)?.value;
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return invalidRequest(`Send a JSON object with ${names.join(", ")}`, null, "invalid_json");
  }
  const found: Record<string, string> = {};
  for (const name of names) {
    const field = Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
    if (typeof field !== "string" || field === "" || field.length > 512) {
      return invalidRequest(`${name} must be a non-empty string (at most 512 characters)`, name, "invalid_value");
    }
    found[name] = field;
  }
  return found;
}

/** The lifecycle API: load, unload, migrate, and the operations they start. */
export function registerLifecycleRoutes(app: FastifyInstance, context: GatewayContext): void {
  const { lifecycle } = context;

  app.post("/v1/models/load", async (request, reply) => {
    const given = fields(request.body, ["model", "backend"]);
    if (given instanceof ApiError) return sendError(reply, given);
    answer(reply, lifecycle.load(given["model"]!, given["backend"]!));
  });

  app.post("/v1/models/migrate", async (request, reply) => {
    const given = fields(request.body, ["model", "from", "to"]);
    if (given instanceof ApiError) return sendError(reply, given);
    const value = (request.body as JsonBody).value as Record<string, unknown>;
    const keep = Object.hasOwn(value, "keep_source") ? value["keep_source"] : false;
    if (typeof keep !== "boolean")
      return sendError(reply, invalidRequest("keep_source must be true or false", "keep_source"));
    answer(reply, lifecycle.migrate(given["model"]!, given["from"]!, given["to"]!, keep));
  });

  // Model ids may hold "/", percent-encoded by the client: the wildcard has them decoded once.
  app.delete("/v1/models/*", async (request, reply) => {
    const model = (request.params as { "*": string })["*"];
    const backend = (request.query as Record<string, unknown>)["backend"];
    if (typeof backend !== "string" || backend === "") {
      return sendError(reply, invalidRequest("Name the backend to unload from: ?backend=NAME", "backend"));
    }
    if (model === "") return sendError(reply, invalidRequest("Name the model: DELETE /v1/models/{id}", "model"));
    answer(reply, lifecycle.unload(model, backend));
  });

  app.get("/v1/models/operations", async (_request, reply) => {
    sendJson(reply, { object: "list", data: lifecycle.operations.list().map(operationBody) });
  });

  app.get("/v1/models/operations/:id", async (request, reply) => {
    const id = (request.params as { id: string }).id;
    const view = lifecycle.operations.get(id);
    if (!view) {
      return sendError(
        reply,
        new ApiError(
          404,
          `No operation '${id}' (finished ones are kept until newer ones replace them)`,
          "invalid_request_error",
          "operation_not_found",
        ),
      );
    }
    sendJson(reply, operationBody(view));
  });
}
