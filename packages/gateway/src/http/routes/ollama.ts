import type { FastifyInstance } from "fastify";
import { ollamaEnvelope } from "../../inbound/ollama/errors.ts";
import { ollamaEmbedFormat, ollamaFormat } from "../../inbound/ollama/format.ts";
import { type FleetModel, OLLAMA_API_VERSION, psEntry, showBody, tagsEntry } from "../../inbound/ollama/models.ts";
import { OLLAMA_ANSWERS } from "../../inbound/ollama/native-answers.ts";
import { fromOllamaChat, fromOllamaGenerate } from "../../inbound/ollama/request.ts";
import type { JsonBody } from "../../request/body.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import { afterFirstRound } from "../after-first-round.ts";
import type { GatewayContext } from "../context.ts";
import { asWritten, dispatchInboundChat } from "../inbound-chat.ts";
import { dispatchInboundEmbeddings } from "../inbound-embeddings.ts";
import { mayUseModel } from "../key-gate.ts";
import { showAtOllama } from "../ollama-show.ts";
import { sendError, sendJson } from "../send.ts";

/** How long /api/ps waits for a backend's list of loaded models. */
const IN_MEMORY_TIMEOUT_MS = 2_000;

/**
 * Ollama's native API (Open WebUI, Continue, ollama-js, ollama-python): the listings from the fleet, chat, generate
 * and embeddings through the one pipeline, answered in Ollama's shapes (NDJSON streams) and error words.
 */
export function registerOllamaRoutes(app: FastifyInstance, context: GatewayContext): void {
  const waitForProbes = afterFirstRound(context.firstRound);
  const { registry } = context;

  /** Every model a healthy backend serves, once (the first backend's facts). */
  const fleetModels = (): FleetModel[] => {
    const seen = new Map<string, FleetModel>();
    for (const state of registry.backends) {
      if (!state.healthy) continue;
      for (const info of state.models) {
        if (!seen.has(info.id)) seen.set(info.id, { info, created: state.firstSeen(info.id) });
      }
    }
    return [...seen.values()].sort((a, b) => (a.info.id < b.info.id ? -1 : a.info.id > b.info.id ? 1 : 0));
  };

  app.get("/api/version", async (_request, reply) => sendJson(reply, { version: OLLAMA_API_VERSION }));
  app.get("/api/tags", waitForProbes, async (request, reply) => {
    const allowed = mayUseModel(request.raw);
    sendJson(reply, {
      models: fleetModels()
        .filter((entry) => allowed(entry.info.id))
        .map(tagsEntry),
    });
  });

  // An ollama backend's own answer when one serves the model; the fleet's facts otherwise.
  app.post("/api/show", waitForProbes, async (request, reply) => {
    const json = request.body as JsonBody | undefined;
    const model = modelOf(json?.value, true);
    const found = fleetModels().find((entry) => entry.info.id === model);
    if (!found) return sendError(reply, notFound(model), {}, ollamaEnvelope(model));
    const body = json?.raw ?? JSON.stringify(json?.value);
    const shown = await showAtOllama(registry.backends, model, body, String(request.id));
    if (shown === undefined) return sendJson(reply, showBody(found));
    reply
      .header("x-request-id", String(request.id))
      .header("x-gateway-backend", shown.backend)
      .type(shown.reply.contentType)
      .send(shown.reply.body);
  });

  // Loaded models: what Ollama backends hold in memory; other backends' models are always loaded.
  app.get("/api/ps", waitForProbes, async (_request, reply) => {
    const loaded = new Set<string>();
    await Promise.all(
      registry.backends
        .filter((state) => state.healthy)
        .map(async (state) => {
          const lifecycle = state.backend.lifecycle;
          if (lifecycle === undefined) {
            for (const model of state.models) loaded.add(model.id);
            return;
          }
          const timeout = new Promise<string[]>((resolve) => setTimeout(resolve, IN_MEMORY_TIMEOUT_MS, []).unref());
          for (const id of await Promise.race([lifecycle.inMemory().catch(() => []), timeout])) loaded.add(id);
        }),
    );
    sendJson(reply, {
      models: fleetModels()
        .filter((model) => loaded.has(model.info.id))
        .map(psEntry),
    });
  });

  app.post("/api/chat", async (request, reply) => {
    const json = request.body as JsonBody | undefined;
    const model = modelOf(json?.value);
    const translated = fromOllamaChat(json?.value);
    await dispatchInboundChat(request, reply, context, {
      model,
      stream: !(translated instanceof ApiError) && translated.stream,
      body: translated instanceof ApiError ? translated : translated.body,
      native: translated instanceof ApiError ? undefined : asWritten("ollama", "/api/chat", json, OLLAMA_ANSWERS),
      format: ollamaFormat("chat", model),
    });
  });

  app.post("/api/generate", async (request, reply) => {
    const json = request.body as JsonBody | undefined;
    const value = json?.value;
    const model = modelOf(value);
    // An empty prompt only asks Ollama to load (or with keep_alive 0, unload) the model: the gateway's backends
    // load on demand, so it is answered at once.
    const prompt = value && typeof value === "object" ? (value as { prompt?: unknown }).prompt : undefined;
    if (model !== "" && (prompt === undefined || prompt === "")) {
      if (!fleetModels().some((entry) => entry.info.id === model)) {
        return sendError(reply, notFound(model), {}, ollamaEnvelope(model));
      }
      const keepAlive = (value as { keep_alive?: unknown }).keep_alive;
      const unload = keepAlive === 0 || keepAlive === "0";
      const body = { model, created_at: new Date().toISOString(), response: "", done: true };
      return sendJson(reply, { ...body, done_reason: unload ? "unload" : "load" });
    }
    const translated = fromOllamaGenerate(value);
    await dispatchInboundChat(request, reply, context, {
      model,
      stream: !(translated instanceof ApiError) && translated.stream,
      body: translated instanceof ApiError ? translated : translated.body,
      native: translated instanceof ApiError ? undefined : asWritten("ollama", "/api/generate", json, OLLAMA_ANSWERS),
      nativeOnly: translated instanceof ApiError ? undefined : translated.nativeOnly,
      format: ollamaFormat("generate", model),
    });
  });

  app.post("/api/embed", async (request, reply) => {
    const value = (request.body as JsonBody | undefined)?.value;
    const model = modelOf(value);
    const record = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
    const body: Record<string, unknown> = { model, input: record["input"] };
    if (typeof record["dimensions"] === "number") body["dimensions"] = record["dimensions"];
    await dispatchInboundEmbeddings(request, reply, context, {
      model,
      body: model === "" ? invalidRequest("model is required", "model") : body,
      format: ollamaEmbedFormat(false, model),
    });
  });

  // The older endpoint: one prompt, one vector.
  app.post("/api/embeddings", async (request, reply) => {
    const value = (request.body as JsonBody | undefined)?.value;
    const model = modelOf(value, true);
    const prompt = value && typeof value === "object" ? (value as { prompt?: unknown }).prompt : undefined;
    await dispatchInboundEmbeddings(request, reply, context, {
      model,
      body:
        typeof prompt === "string" && prompt !== "" ? { model, input: prompt } : invalidRequest("prompt is required"),
      format: ollamaEmbedFormat(true, model),
    });
  });
}

/** `model` (or, where Ollama still takes it, the older `name`). */
function modelOf(value: unknown, orName = false): string {
  if (!value || typeof value !== "object") return "";
  const record = value as Record<string, unknown>;
  if (typeof record["model"] === "string") return record["model"];
  return orName && typeof record["name"] === "string" ? record["name"] : "";
}

const notFound = (model: string) =>
  new ApiError(404, `model '${model}' not found`, "not_found_error", "model_not_found");
