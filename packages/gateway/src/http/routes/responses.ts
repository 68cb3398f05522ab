import type { FastifyInstance } from "fastify";
import { responsesFormat } from "../../inbound/responses/format.ts";
import { RESPONSES_ANSWERS } from "../../inbound/responses/native-answers.ts";
import { fromResponsesRequest } from "../../inbound/responses/request.ts";
import { ResponseDraft } from "../../inbound/responses/response.ts";
import { MemoryResponseStore, type ResponseStore } from "../../inbound/responses/store.ts";
import type { JsonBody } from "../../request/body.ts";
import type { ChatMessage } from "../../request/chat.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import type { GatewayContext } from "../context.ts";
import { asWritten, dispatchInboundChat } from "../inbound-chat.ts";
import { sendError, sendJson } from "../send.ts";

const notFound = (id: string, param: string | null = null) =>
  new ApiError(404, `Response with id '${id}' not found.`, "invalid_request_error", "not_found", param);

/**
 * OpenAI's Responses API (Codex, the Agents SDK): POST /v1/responses through the one pipeline, and the kept responses
 * (store, previous_response_id) under GET and DELETE /v1/responses/{id}, bounded in count and age.
 */
export function registerResponsesRoutes(
  app: FastifyInstance,
  context: GatewayContext,
  store: ResponseStore = new MemoryResponseStore(),
): void {
  app.post("/v1/responses", async (request, reply) => {
    const json = request.body as JsonBody | undefined;
    const value = json?.value;
    const record = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
    const model = typeof record["model"] === "string" ? record["model"] : "";
    let previous: ChatMessage[] = [];
    const previousId = record["previous_response_id"];
    if (typeof previousId === "string") {
      const stored = await store.get(previousId);
      if (stored === undefined) return sendError(reply, notFound(previousId, "previous_response_id"));
      previous = stored.history;
    }
    const translated = fromResponsesRequest(value, previous);
    if (translated instanceof ApiError) {
      return dispatchInboundChat(request, reply, context, {
        model,
        stream: false,
        body: translated,
        format: responsesFormat(new ResponseDraft(emptyEcho(model)), [], undefined, () => {}),
      });
    }
    // A request that keeps nothing at the gateway (store: false, no previous_response_id: Codex's) goes to an openai
    // backend as written: reasoning items, hosted and custom tools, and the models only this API serves reach OpenAI.
    // A stored one is the gateway's to keep, so it is translated for every backend.
    const stateless = !translated.store && typeof previousId !== "string";
    const nativeOnly = translated.untranslated[0];
    if (nativeOnly !== undefined && !stateless) {
      return dispatchInboundChat(request, reply, context, {
        model,
        stream: false,
        body: keptUntranslatable(nativeOnly),
        format: responsesFormat(new ResponseDraft(translated.echo), [], undefined, () => {}),
      });
    }
    const draft = new ResponseDraft(translated.echo);
    const history = [...previous, ...translated.input];
    const onStoreFailed = (error: unknown) => context.logger.warn({ err: error }, "a response could not be stored");
    await dispatchInboundChat(request, reply, context, {
      model,
      stream: translated.stream,
      body: translated.body,
      native: stateless ? asWritten("openai-responses", "/v1/responses", json, RESPONSES_ANSWERS) : undefined,
      nativeOnly,
      format: responsesFormat(draft, history, translated.store ? store : undefined, onStoreFailed),
    });
  });

  app.get("/v1/responses/:id", async (request, reply) => {
    const { id } = request.params as { id: string };
    const stored = await store.get(id);
    if (stored === undefined) return sendError(reply, notFound(id));
    sendJson(reply, stored.response);
  });

  app.delete("/v1/responses/:id", async (request, reply) => {
    const { id } = request.params as { id: string };
    if (!(await store.delete(id))) return sendError(reply, notFound(id));
    sendJson(reply, { id, object: "response", deleted: true });
  });
}

/** 400: a stored response the gateway would keep holds what only OpenAI's own API can take. */
function keptUntranslatable(what: string): ApiError {
  return invalidRequest(
    `${what} can only go to OpenAI's own Responses API, which the gateway uses only for requests it keeps nothing of: ` +
      "send store: false (and the whole conversation as input, without previous_response_id)",
    null,
    "untranslatable_request",
  );
}

function emptyEcho(model: string) {
  return {
    model,
    instructions: null,
    tools: [],
    tool_choice: "auto",
    parallel_tool_calls: true,
    temperature: null,
    top_p: null,
    max_output_tokens: null,
    previous_response_id: null,
    text: { format: { type: "text" } },
    metadata: {},
    store: false,
  };
}
