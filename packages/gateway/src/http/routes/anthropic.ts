import type { IncomingHttpHeaders } from "node:http";
import type { FastifyInstance } from "fastify";
import { bodyWithModel } from "../../dispatch/rewrite-body.ts";
import { anthropicEnvelope } from "../../inbound/anthropic/errors.ts";
import { anthropicFormat } from "../../inbound/anthropic/format.ts";
import { ANTHROPIC_ANSWERS } from "../../inbound/anthropic/native-answers.ts";
import { fromMessagesRequest } from "../../inbound/anthropic/request.ts";
import { countPromptTokens } from "../../policy/tokens.ts";
import type { JsonBody } from "../../request/body.ts";
import { ApiError } from "../../request/errors.ts";
import type { GatewayContext } from "../context.ts";
import { asWritten, dispatchInboundChat } from "../inbound-chat.ts";
import { countAtProvider, relayProviderCount } from "../provider-count.ts";
import { sendError, sendJson } from "../send.ts";

/** Anthropic's Messages API: POST /v1/messages and POST /v1/messages/count_tokens (the key arrives in x-api-key). */
export function registerAnthropicRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.post("/v1/messages", async (request, reply) => {
    const json = request.body as JsonBody | undefined;
    const value = json?.value;
    const translated = fromMessagesRequest(value);
    const model = modelOf(value);
    const refused = translated instanceof ApiError;
    await dispatchInboundChat(request, reply, context, {
      model,
      stream: !refused && translated.stream,
      body: refused ? translated : translated.body,
      // An anthropic backend gets the request as written (thinking blocks, signatures, cache points) and answers as
      // is; the others get the translation.
      native: refused
        ? undefined
        : asWritten("anthropic-messages", "/v1/messages", json, ANTHROPIC_ANSWERS, providerHeaders(request.headers)),
      nativeOnly: refused ? undefined : translated.untranslated[0],
      format: anthropicFormat(model),
    });
  });

  // Counted by an anthropic backend of the model, as Anthropic counts (free); otherwise locally (o200k tokens, an
  // estimate of Claude's). Nothing is billed either way.
  app.post("/v1/messages/count_tokens", async (request, reply) => {
    const json = request.body as JsonBody | undefined;
    const translated = fromMessagesRequest(json?.value, false);
    if (translated instanceof ApiError) return sendError(reply, translated, {}, anthropicEnvelope);
    const written = json as JsonBody; // there was a body: its translation succeeded
    const counted = await countAtProvider(
      context,
      { id: String(request.id), headers: request.headers },
      translated.body,
      {
        api: "anthropic-messages",
        callFor: (model) => ({
          path: "/v1/messages/count_tokens",
          body: bodyWithModel(written.value as Record<string, unknown>, written.raw, model),
        }),
        headers: providerHeaders(request.headers),
      },
    );
    if (counted === undefined) return sendJson(reply, { input_tokens: await countPromptTokens(translated.body) });
    relayProviderCount(reply, counted);
  });
}

/**
 * The client's headers an anthropic backend reads: the betas it asked for (interleaved thinking, 1M context...), as
 * sent (node's parser refused control characters, so the backend's request can carry them; Anthropic judges them).
 */
function providerHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const beta = headers["anthropic-beta"];
  if (beta === undefined) return {};
  return { "anthropic-beta": Array.isArray(beta) ? beta.join(",") : beta };
}

function modelOf(value: unknown): string {
  const model = value && typeof value === "object" ? (value as { model?: unknown }).model : undefined;
  return typeof model === "string" ? model : "";
}
