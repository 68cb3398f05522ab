import type { FastifyInstance } from "fastify";
import { anthropicEnvelope } from "../../inbound/anthropic/errors.ts";
import { anthropicFormat } from "../../inbound/anthropic/format.ts";
import { fromMessagesRequest } from "../../inbound/anthropic/request.ts";
import { countPromptTokens } from "../../policy/tokens.ts";
import type { JsonBody } from "../../request/body.ts";
import { ApiError } from "../../request/errors.ts";
import type { GatewayContext } from "../context.ts";
import { dispatchInboundChat } from "../inbound-chat.ts";
import { sendError, sendJson } from "../send.ts";

/** Anthropic's Messages API: POST /v1/messages and POST /v1/messages/count_tokens (the key arrives in x-api-key). */
export function registerAnthropicRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.post("/v1/messages", async (request, reply) => {
    const value = (request.body as JsonBody | undefined)?.value;
    const translated = fromMessagesRequest(value);
    const model = modelOf(value);
    const thinking = translated instanceof ApiError ? undefined : translated.thinking;
    await dispatchInboundChat(request, reply, context, {
      model,
      stream: !(translated instanceof ApiError) && translated.stream,
      body: translated instanceof ApiError ? translated : translated.body,
      // Extended thinking reaches the backends that understand it; to the others it would be an unknown field.
      fieldsFor: thinking === undefined ? undefined : (type) => (type === "anthropic" ? { thinking } : undefined),
      format: anthropicFormat(model),
    });
  });

  // A local count (o200k tokens, an estimate of Claude's): no backend is called, nothing is billed.
  app.post("/v1/messages/count_tokens", async (request, reply) => {
    const translated = fromMessagesRequest((request.body as JsonBody | undefined)?.value, false);
    if (translated instanceof ApiError) return sendError(reply, translated, {}, anthropicEnvelope);
    sendJson(reply, { input_tokens: await countPromptTokens(translated.body) });
  });
}

function modelOf(value: unknown): string {
  const model = value && typeof value === "object" ? (value as { model?: unknown }).model : undefined;
  return typeof model === "string" ? model : "";
}
