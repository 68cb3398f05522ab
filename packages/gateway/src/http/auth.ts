import type { IncomingMessage } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Lease } from "../access/admission.ts";
import { hashSecret, secretMatches } from "../access/secret.ts";
import type { AuthSettings } from "../config/types.ts";
import type { JsonBody } from "../request/body.ts";
import { forbidden, invalidApiKey, stateStoreUnavailable } from "../request/errors.ts";
import { factsOf } from "../request/facts.ts";
import type { StoredKey } from "../state/types.ts";
import { envelopeOf } from "./api-envelope.ts";
import type { GatewayContext } from "./context.ts";
import { presentedKey } from "./credentials.ts";
import { routeAccess } from "./route-access.ts";
import { sendError } from "./send.ts";

type Principal = { kind: "master" } | { kind: "key"; key: StoredKey };

const PRINCIPALS = new WeakMap<IncomingMessage, Principal>();

/** Whether the request's key may use a model: a key with a `models` list sees only those in model listings. */
export function mayUseModel(request: IncomingMessage): (model: string) => boolean {
  const principal = PRINCIPALS.get(request);
  const allowed = principal?.kind === "key" ? principal.key.models : undefined;
  if (allowed === undefined) return () => true;
  const set = new Set(allowed);
  return (model) => set.has(model);
}

/**
 * Authentication and per-key limits as two hooks, so that every route — those registered later included — passes
 * through them: onRequest checks the key against the route's access, preHandler (once the body is read) applies the
 * key's model list and limits to any request whose JSON body names a model. Keys never reach a log line.
 */
export function registerAuth(app: FastifyInstance, context: GatewayContext, auth: AuthSettings): void {
  const access = context.access;
  if (!access) return;
  const masterHash = hashSecret(auth.masterKey);

  app.addHook("onRequest", async (request, reply) => {
    const needs = routeAccess(request.method, request.routeOptions.url);
    if (needs === "open" || (needs === "metrics" && auth.publicMetrics)) return;
    const path = request.url.split("?")[0] ?? "";
    const given = presentedKey(request.headers, path, needs === "metrics");
    const refuse = (message: string) => {
      // A browser asks for the master key (as a Basic password) on the dashboard and /metrics.
      if (needs === "metrics") reply.header("www-authenticate", 'Basic realm="switchboard-gateway", charset="UTF-8"');
      sendError(reply, invalidApiKey(message), {}, envelopeOf(request));
      return reply;
    };
    if (given === undefined) {
      return refuse(
        "You didn't provide an API key. Send it in an Authorization header: Authorization: Bearer <key>" +
          (path.startsWith("/v1/messages") ? " (or x-api-key)" : ""),
      );
    }
    if (secretMatches(given, masterHash)) {
      PRINCIPALS.set(request.raw, { kind: "master" });
      return;
    }
    const found = await access.keys.verify(given);
    if (found.kind === "unavailable") {
      sendError(reply, stateStoreUnavailable(), { "retry-after": "1" }, envelopeOf(request));
      return reply;
    }
    if (found.kind === "unknown") return refuse("Incorrect API key provided; ask the gateway's operator for a key");
    const { key } = found;
    if (key.expiresAt !== undefined && Date.parse(key.expiresAt) <= Date.now()) {
      return refuse(`This API key ("${key.name}") expired at ${key.expiresAt}; ask for a new one`);
    }
    if (needs !== "key") {
      sendError(
        reply,
        forbidden(
          needs === "master"
            ? "This route needs the master key ([auth] master_key_env), not a virtual key"
            : "/metrics and the dashboard need the master key (or [auth] public_metrics = true)",
          "insufficient_permissions",
        ),
        {},
        envelopeOf(request),
      );
      return reply;
    }
    PRINCIPALS.set(request.raw, { kind: "key", key });
  });

  app.addHook("preHandler", async (request, reply) => {
    const principal = PRINCIPALS.get(request.raw);
    if (principal?.kind !== "key") return;
    const model = modelOf(request);
    if (model === undefined) return;
    const { key } = principal;
    factsOf(request.raw).keyName = key.name;
    if (key.models !== undefined && !key.models.includes(model)) {
      sendError(
        reply,
        forbidden(
          `The key "${key.name}" may not use the model "${model.slice(0, 256)}"; it may use: ${key.models.join(", ")}`,
          "model_not_allowed",
          "model",
        ),
        {},
        envelopeOf(request, model),
      );
      return reply;
    }
    const admission = await access.limits.admit(key);
    // On the raw response too, so that hijacked answers (streams, relayed bodies) carry them.
    for (const [name, value] of Object.entries(admission.headers)) reply.raw.setHeader(name, value);
    if (!admission.admitted) {
      sendError(reply, admission.error, {}, envelopeOf(request, model));
      return reply;
    }
    settleWhenDone(request, reply, admission.lease, context);
    return;
  });
}

/** The `model` of a JSON body, for every route that has one (chat, embeddings, and the inbound APIs). */
function modelOf(request: FastifyRequest): string | undefined {
  const value = (request.body as JsonBody | undefined)?.value;
  if (value === null || typeof value !== "object") return undefined;
  const model = (value as Record<string, unknown>)["model"];
  return typeof model === "string" ? model : undefined;
}

/** Once the answer is over (and the dispatch has recorded its usage): the slot back, tokens and cost counted. */
function settleWhenDone(request: FastifyRequest, reply: FastifyReply, lease: Lease, context: GatewayContext): void {
  reply.raw.once("close", () => {
    const facts = factsOf(request.raw);
    const settle = () => {
      const promptTokens = facts.promptTokens ?? 0;
      const completionTokens = facts.completionTokens ?? 0;
      const backend = facts.backend === undefined ? undefined : context.registry.get(facts.backend);
      // Local backends cost nothing (as for the global budget); cloud ones at their price.
      const costUsd =
        backend?.settings.kind === "cloud" && facts.backendModel !== undefined
          ? (context.prices.cost(facts.backendModel, {
              inputTokens: promptTokens,
              cacheReadTokens: 0,
              cacheWriteTokens: 0,
              outputTokens: completionTokens,
            }) ?? 0)
          : 0;
      void context.access?.limits.settle(lease, { promptTokens, completionTokens, costUsd });
    };
    if (facts.dispatch) facts.dispatch.then(settle, settle);
    else settle();
  });
}
