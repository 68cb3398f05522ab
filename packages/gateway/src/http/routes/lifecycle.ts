import type { FastifyInstance, FastifyReply } from "fastify";
import { type LifecycleRefusal, refused } from "../../lifecycle/manager.ts";
import type { JsonBody } from "../../request/body.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import type { OperationView } from "../../telemetry/events.ts";
import { afterFirstRound } from "../after-first-round.ts";
import type { GatewayContext } from "../context.ts";
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

/** The longest model id, backend name or operation id the lifecycle routes take, in a body, a path or a query. */
const NAME_LIMIT = 512;

/** A name given to a lifecycle route, or the 400 every route answers for a missing or oversized one. */
function checkedName(name: string, value: unknown): string | ApiError {
  if (typeof value === "string" && value !== "" && value.length <= NAME_LIMIT) return value;
  return invalidRequest(`${name} must be a non-empty string (at most ${NAME_LIMIT} characters)`, name, "invalid_value");
}

/** The named string fields of a JSON body, or a 400 naming the first one missing or wrong. */
function fields(body: unknown, names: readonly string[]): Record<string, string> | ApiError {
  const value = (body as JsonBody | undefined)?.value;
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return invalidRequest(`Send a JSON object with ${names.join(", ")}`, null, "invalid_json");
  }
  const found: Record<string, string> = {};
  for (const name of names) {
    const field = checkedName(name, Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined);
    if (field instanceof ApiError) return field;
    found[name] = field;
  }
  return found;
}

/** 404 for an id no operation has (any length: an id over the limit is simply not one). */
function operationNotFound(id: string): ApiError {
  const shown = id.length > 80 ? `${id.slice(0, 80)}…` : id;
  return new ApiError(
    404,
    `No operation '${shown}' (finished ones are kept until newer ones replace them)`,
    "invalid_request_error",
    "operation_not_found",
  );
}

/** The id after /v1/models/operations/: a wildcard, so that no id, however long or with "/", reaches the model routes. */
const operationId = (params: unknown) => (params as { "*": string })["*"];

/** The lifecycle API: load, unload, migrate, and the operations they start (poll, list, cancel). */
export function registerLifecycleRoutes(app: FastifyInstance, context: GatewayContext): void {
  const waitForProbes = afterFirstRound(context.firstRound);
  const { lifecycle } = context;

  app.post("/v1/models/load", waitForProbes, async (request, reply) => {
    const given = fields(request.body, ["model", "backend"]);
    if (given instanceof ApiError) return sendError(reply, given);
    answer(reply, lifecycle.load(given["model"]!, given["backend"]!));
  });

  app.post("/v1/models/migrate", waitForProbes, async (request, reply) => {
    const given = fields(request.body, ["model", "from", "to"]);
    if (given instanceof ApiError) return sendError(reply, given);
    const value = (request.body as JsonBody).value as Record<string, unknown>;
    const keep = Object.hasOwn(value, "keep_source") ? value["keep_source"] : false;
    if (typeof keep !== "boolean")
      return sendError(reply, invalidRequest("keep_source must be true or false", "keep_source"));
    answer(reply, lifecycle.migrate(given["model"]!, given["from"]!, given["to"]!, keep));
  });

  // Model ids may hold "/", percent-encoded by the client: the wildcard has them decoded once.
  app.delete("/v1/models/*", waitForProbes, async (request, reply) => {
    const given = (request.query as Record<string, unknown>)["backend"];
    if (typeof given !== "string" || given === "") {
      return sendError(reply, invalidRequest("Name the backend to unload from: ?backend=NAME", "backend"));
    }
    const raw = (request.params as { "*": string })["*"];
    if (raw === "") return sendError(reply, invalidRequest("Name the model: DELETE /v1/models/{id}", "model"));
    const model = checkedName("model", raw);
    if (model instanceof ApiError) return sendError(reply, model);
    const backend = checkedName("backend", given);
    if (backend instanceof ApiError) return sendError(reply, backend);
    answer(reply, lifecycle.unload(model, backend));
  });

  app.get("/v1/models/operations", async (_request, reply) => {
    sendJson(reply, { object: "list", data: lifecycle.operations.list().map(operationBody) });
  });

  app.get("/v1/models/operations/*", async (request, reply) => {
    const id = operationId(request.params);
    const view = lifecycle.operations.get(id);
    if (!view) return sendError(reply, operationNotFound(id));
    sendJson(reply, operationBody(view));
  });

  // Cancel: the operation ends now ("cancelled"), its backends are free, what it was doing there is aborted.
  app.delete("/v1/models/operations/*", async (request, reply) => {
    const id = operationId(request.params);
    const outcome = lifecycle.operations.cancel(id);
    if ("missing" in outcome) return sendError(reply, operationNotFound(id));
    if ("finished" in outcome) {
      const { status } = outcome.finished;
      return sendError(
        reply,
        new ApiError(
          409,
          `Operation '${id}' has already ${status === "cancelled" ? "been cancelled" : status}; nothing to cancel`,
          "conflict_error",
          "operation_finished",
        ),
      );
    }
    sendJson(reply, operationBody(outcome.cancelled));
  });
}
