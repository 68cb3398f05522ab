import type { FastifyInstance } from "fastify";
import { OPENAI_ANSWERS } from "../../dispatch/answer-dialect.ts";
import { fromCompletionRequest } from "../../inbound/completions/request.ts";
import type { AnswerFormat } from "../../inbound/translating-writer.ts";
import type { JsonBody } from "../../request/body.ts";
import { ApiError, openAiEnvelope } from "../../request/errors.ts";
import type { GatewayContext } from "../context.ts";
import { asWritten, dispatchInboundChat } from "../inbound-chat.ts";
import { modelOf } from "../key-gate.ts";

/**
 * The answers of POST /v1/completions: always a backend's own (no backend's chat answer is ever translated into
 * one), so only the error envelope is of use.
 */
const COMPLETIONS_FORMAT: AnswerFormat = {
  streamType: "text/event-stream; charset=utf-8",
  completion: (body) => body,
  envelope: openAiEnvelope,
};

/**
 * OpenAI's text completions, the API of code completion: through the one pipeline (routing, queue, failover, keys,
 * metrics) to the backends that serve it (vLLM, llama.cpp, LM Studio, Ollama, generic servers), as written.
 */
export function registerCompletionsRoutes(app: FastifyInstance, context: GatewayContext): void {
  app.post("/v1/completions", async (request, reply) => {
    const json = request.body as JsonBody | undefined;
    const value = json?.value;
    const model = modelOf(value) ?? "";
    const translated = fromCompletionRequest(value);
    const refused = translated instanceof ApiError;
    await dispatchInboundChat(request, reply, context, {
      model,
      stream: !refused && translated.stream,
      body: refused ? translated : translated.body,
      native: refused ? undefined : asWritten("openai-completions", "/v1/completions", json, OPENAI_ANSWERS),
      nativeOnly: "a text completion (/v1/completions)",
      format: COMPLETIONS_FORMAT,
    });
  });
}
