import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { fromEmbedContent, geminiEmbedFormat } from "../../inbound/gemini/embeddings.ts";
import { geminiEnvelope } from "../../inbound/gemini/errors.ts";
import { geminiFormat } from "../../inbound/gemini/format.ts";
import { type GeminiListedModel, geminiModel } from "../../inbound/gemini/models.ts";
import { GEMINI_ANSWERS } from "../../inbound/gemini/native-answers.ts";
import { type GeminiCall, geminiCallOf } from "../../inbound/gemini/path.ts";
import { fromGenerateContent } from "../../inbound/gemini/request.ts";
import { countPromptTokens } from "../../policy/tokens.ts";
import type { JsonBody } from "../../request/body.ts";
import { ApiError } from "../../request/errors.ts";
import { afterFirstRound } from "../after-first-round.ts";
import type { GatewayContext } from "../context.ts";
import { asWritten, dispatchInboundChat } from "../inbound-chat.ts";
import { dispatchInboundEmbeddings } from "../inbound-embeddings.ts";
import { mayUseModel } from "../key-gate.ts";
import { countAtProvider, relayProviderCount } from "../provider-count.ts";
import { sendError, sendJson } from "../send.ts";

const CHAT_METHODS = new Set(["generateContent", "streamGenerateContent"]);
const EMBED_METHODS = new Set(["embedContent", "batchEmbedContents"]);

const notFound = (message: string) => new ApiError(404, message, "not_found_error", "not_found");

/**
 * Google's Gemini API (the Gemini CLI, @google/genai, google-genai): generateContent and streamGenerateContent through
 * the one pipeline, answered in Gemini's shapes, with google backends getting the request as written; embedContent and
 * batchEmbedContents as embeddings requests; countTokens; the model listing. The key arrives in x-goog-api-key.
 */
export function registerGeminiRoutes(app: FastifyInstance, context: GatewayContext): void {
  const waitForProbes = afterFirstRound(context.firstRound);

  /** Every model a healthy backend serves, once, that the request's key may use. */
  const listed = (request: FastifyRequest): GeminiListedModel[] => {
    const allowed = mayUseModel(request.raw);
    const seen = new Map<string, GeminiListedModel>();
    for (const state of context.registry.backends) {
      if (!state.healthy) continue;
      for (const model of state.models) {
        if (seen.has(model.id) || !allowed(model.id)) continue;
        const embeds = model.capabilities?.has("embeddings") ?? false;
        seen.set(model.id, { id: model.id, contextLength: model.contextLength, embeds });
      }
    }
    return [...seen.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  };

  app.get("/v1beta/models", waitForProbes, async (request, reply) => {
    sendJson(reply, { models: listed(request).map(geminiModel) });
  });

  app.get("/v1beta/models/*", waitForProbes, async (request, reply) => {
    const id = (request.params as { "*": string })["*"].replace(/^models\//, "");
    const found = listed(request).find((model) => model.id === id);
    if (found) return sendJson(reply, geminiModel(found));
    sendError(reply, notFound(`models/${id} is not found: no healthy backend serves it`), {}, geminiEnvelope);
  });

  const call = async (request: FastifyRequest, reply: FastifyReply) => {
    const target = geminiCallOf(request.url);
    if (target === undefined) {
      return sendError(reply, notFound("expected /v1beta/models/{model}:{method}"), {}, geminiEnvelope);
    }
    if (CHAT_METHODS.has(target.method)) return generate(request, reply, target);
    if (target.method === "countTokens") return countTokens(request, reply, target);
    if (EMBED_METHODS.has(target.method)) {
      const batch = target.method === "batchEmbedContents";
      const value = (request.body as JsonBody | undefined)?.value;
      return dispatchInboundEmbeddings(request, reply, context, {
        model: target.model,
        body: fromEmbedContent(value, target.model, batch),
        format: geminiEmbedFormat(batch),
      });
    }
    const message =
      `${target.method} is not served here: generateContent, streamGenerateContent, countTokens, embedContent and ` +
      "batchEmbedContents are";
    sendError(reply, notFound(message), {}, geminiEnvelope);
  };
  app.post("/v1beta/models/*", call);
  app.post("/v1/models/*", call);

  async function generate(request: FastifyRequest, reply: FastifyReply, target: GeminiCall): Promise<void> {
    const json = request.body as JsonBody | undefined;
    const stream = target.method === "streamGenerateContent";
    const sse = stream && (request.query as Record<string, unknown>)["alt"] === "sse";
    const translated = fromGenerateContent(json?.value, target.model, stream);
    const refused = translated instanceof ApiError;
    const method = `${target.method}${sse ? "?alt=sse" : ""}`;
    await dispatchInboundChat(request, reply, context, {
      model: target.model,
      stream,
      body: refused ? translated : translated.body,
      // A google backend gets the request as written (thought signatures, Google's own tools, cached content) and
      // answers as is; the others get the translation.
      native: refused
        ? undefined
        : {
            ...asWritten("gemini-generate", request.url, json, GEMINI_ANSWERS),
            pathFor: (model) => `/${target.version}/models/${model}:${method}`,
          },
      nativeOnly: refused ? undefined : translated.untranslated[0],
      format: geminiFormat(target.model, sse),
    });
  }

  // Counted by a google backend of the model, as Google counts (free); otherwise locally (o200k tokens, an estimate).
  async function countTokens(request: FastifyRequest, reply: FastifyReply, target: GeminiCall): Promise<void> {
    const json = request.body as JsonBody | undefined;
    const value = json?.value;
    // The body is {contents} or {generateContentRequest: {model, contents, ...}}.
    const nested =
      value && typeof value === "object" ? (value as Record<string, unknown>)["generateContentRequest"] : undefined;
    const translated = fromGenerateContent(nested ?? value, target.model, false);
    if (translated instanceof ApiError) return sendError(reply, translated, {}, geminiEnvelope);
    // The nested request names its model too: the backend's.
    const bodyFor = (model: string) =>
      nested && typeof nested === "object"
        ? JSON.stringify({ ...(value as object), generateContentRequest: { ...nested, model: `models/${model}` } })
        : (json?.raw ?? JSON.stringify(value));
    const counted = await countAtProvider(
      context,
      { id: String(request.id), headers: request.headers },
      translated.body,
      {
        api: "gemini-generate",
        callFor: (model) => ({ path: `/${target.version}/models/${model}:countTokens`, body: bodyFor(model) }),
        headers: {},
      },
    );
    if (counted === undefined) return sendJson(reply, { totalTokens: await countPromptTokens(translated.body) });
    relayProviderCount(reply, counted);
  }
}
