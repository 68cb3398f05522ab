// Who is asking, and whether their key may go on: the checks behind `[auth]`, apart from any framework, so that
// fastify's hooks (auth.ts) and the fast path of the model routes (fast-model-routes.ts) apply exactly the same ones. Keys never reach a log
// line.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Lease } from "../access/admission.ts";
import { hashSecret, secretMatches } from "../access/secret.ts";
import type { AuthSettings } from "../config/types.ts";
import { isGeminiPath } from "../inbound/gemini/path.ts";
import { type ApiError, forbidden, invalidApiKey, stateStoreUnavailable } from "../request/errors.ts";
import { factsOf } from "../request/facts.ts";
import type { StoredKey } from "../state/types.ts";
import type { GatewayContext } from "./context.ts";
import { presentedKey } from "./credentials.ts";
import { routeAccess } from "./route-access.ts";

type Principal = { kind: "master" } | { kind: "key"; key: StoredKey };

/** An answer refusing the request, with the headers it carries. */
export interface Refusal {
  error: ApiError;
  headers: Record<string, string>;
}

const PRINCIPALS = new WeakMap<IncomingMessage, Principal>();

/** Whether the request's key may use a model: a key with a `models` list sees only those in model listings. */
export function mayUseModel(request: IncomingMessage): (model: string) => boolean {
  const principal = PRINCIPALS.get(request);
  const allowed = principal?.kind === "key" ? principal.key.models : undefined;
  if (allowed === undefined) return () => true;
  const set = new Set(allowed);
  return (model) => set.has(model);
}

export interface KeyGate {
  /**
   * Checks the request's key against its route's access (`route` is the route's pattern, undefined when none
   * matched); remembers who it is. Undefined when the request may go on.
   */
  authenticate(request: IncomingMessage, route: string | undefined): Promise<Refusal | undefined>;
  /**
   * Once the body is read: a virtual key's model list and limits, for a request whose body names a model. The
   * limits' headers go on the response; the key's slot is given back once the answer is over.
   */
  admit(request: IncomingMessage, res: ServerResponse, model: string | undefined): Promise<Refusal | undefined>;
}

export function keyGate(context: GatewayContext, auth: AuthSettings): KeyGate | undefined {
  const access = context.access;
  if (!access) return undefined;
  const masterHash = hashSecret(auth.masterKey);
  const refuse = (error: ApiError, headers: Record<string, string> = {}): Refusal => ({ error, headers });

  const authenticate = async (request: IncomingMessage, route: string | undefined): Promise<Refusal | undefined> => {
    const method = request.method ?? "GET";
    const needs = routeAccess(method, route);
    if (needs === "open" || (needs === "metrics" && auth.publicMetrics)) return undefined;
    const path = (request.url ?? "").split("?")[0] ?? "";
    const given = presentedKey(request.headers, path, needs === "metrics");
    // A browser asks for the master key (as a Basic password) on the dashboard and /metrics.
    const challenge: Record<string, string> =
      needs === "metrics" ? { "www-authenticate": 'Basic realm="switchboard-gateway", charset="UTF-8"' } : {};
    const unauthorized = (message: string) => refuse(invalidApiKey(message), challenge);
    if (given === undefined) {
      return unauthorized(
        "You didn't provide an API key. Send it in an Authorization header: Authorization: Bearer <key>" +
          (path.startsWith("/v1/messages") ? " (or x-api-key)" : isGeminiPath(path) ? " (or x-goog-api-key)" : ""),
      );
    }
    if (secretMatches(given, masterHash)) {
      PRINCIPALS.set(request, { kind: "master" });
      return undefined;
    }
    const found = await access.keys.verify(given);
    if (found.kind === "unavailable") return refuse(stateStoreUnavailable(), { "retry-after": "1" });
    if (found.kind === "unknown")
      return unauthorized("Incorrect API key provided; ask the gateway's operator for a key");
    const { key } = found;
    if (key.expiresAt !== undefined && Date.parse(key.expiresAt) <= Date.now()) {
      return unauthorized(`This API key ("${key.name}") expired at ${key.expiresAt}; ask for a new one`);
    }
    if (needs !== "key") {
      return refuse(
        forbidden(
          needs === "master"
            ? "This route needs the master key ([auth] master_key_env), not a virtual key"
            : "/metrics and the dashboard need the master key (or [auth] public_metrics = true)",
          "insufficient_permissions",
        ),
      );
    }
    PRINCIPALS.set(request, { kind: "key", key });
    return undefined;
  };

  const admit = async (
    request: IncomingMessage,
    res: ServerResponse,
    model: string | undefined,
  ): Promise<Refusal | undefined> => {
    const principal = PRINCIPALS.get(request);
    if (principal?.kind !== "key" || model === undefined) return undefined;
    const { key } = principal;
    factsOf(request).keyName = key.name;
    if (key.models !== undefined && !key.models.includes(model)) {
      return refuse(
        forbidden(
          `The key "${key.name}" may not use the model "${model.slice(0, 256)}"; it may use: ${key.models.join(", ")}`,
          "model_not_allowed",
          "model",
        ),
      );
    }
    const admission = await access.limits.admit(key);
    // On the raw response, so that every answer (streams, relayed bodies, refusals) carries them.
    for (const [name, value] of Object.entries(admission.headers)) res.setHeader(name, value);
    if (!admission.admitted) return refuse(admission.error);
    settleWhenDone(request, res, admission.lease, context);
    return undefined;
  };

  return { authenticate, admit };
}

/** Once the answer is over (and the dispatch has recorded its usage): the slot back, tokens and cost counted. */
function settleWhenDone(request: IncomingMessage, res: ServerResponse, lease: Lease, context: GatewayContext): void {
  res.once("close", () => {
    const facts = factsOf(request);
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

/** The `model` of a parsed JSON body, for every route that has one (chat, embeddings, and the inbound APIs). */
export function modelOf(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const model = (value as Record<string, unknown>)["model"];
  return typeof model === "string" ? model : undefined;
}
