// The OpenAI-compatible API (/v1/models, /v1/chat/completions, /v1/completions, /v1/embeddings, /v1/responses) as
// OpenAI, vLLM and Ollama serve it.

import { completionsRoute } from "./completions-routes.ts";
import {
  capabilitiesOf,
  countTokens,
  DEFAULT_CONTEXT_LENGTH,
  DEFAULT_EMBEDDING_DIMENSIONS,
  defaultReply,
  embeddingInputs,
  embeddingOf,
  embeddingToBase64,
  promptTokens,
} from "./content.ts";
import { streamChat } from "./openai-stream.ts";
import { buildAnswer } from "./reply.ts";
import { responsesRoute } from "./responses-routes.ts";
import { type Exchange, type Handler, sendJson } from "./server.ts";
import type { ChatMessage, ChatRequest, FakeModel } from "./types.ts";

/** "openai": OpenAI and vLLM-style servers. "ollama": Ollama's compatibility layer (whole tool calls per chunk). */
export type Flavor = "openai" | "ollama";

const CREATED = 1_700_000_000;
let sequence = 0;

export function openAiError(
  exchange: Exchange,
  status: number,
  message: string,
  options: { type?: string; param?: string | null; code?: string | null } = {},
): void {
  const type = options.type ?? (status >= 500 ? "server_error" : "invalid_request_error");
  sendJson(exchange, status, { error: { message, type, param: options.param ?? null, code: options.code ?? null } });
}

export function openAiUnauthorized(exchange: Exchange, provided: boolean): void {
  const message = provided
    ? "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys."
    : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.";
  openAiError(exchange, 401, message, { code: provided ? "invalid_api_key" : null });
}

export function openAiFaultBody(status: number): unknown {
  const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message: `fake fault: status ${status}`, type, param: null, code: null } };
}

function objectBody(exchange: Exchange): Record<string, unknown> | undefined {
  const body = exchange.body;
  if (body === undefined || !body.ok) {
    openAiError(
      exchange,
      400,
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
    );
    return undefined;
  }
  if (!body.value || typeof body.value !== "object" || Array.isArray(body.value)) {
    openAiError(exchange, 400, "The request body must be a JSON object.");
    return undefined;
  }
  return body.value as Record<string, unknown>;
}

function findModel(exchange: Exchange, body: Record<string, unknown>): FakeModel | undefined {
  if (typeof body.model !== "string" || body.model === "") {
    openAiError(exchange, 400, "you must provide a model parameter", { param: "model" });
    return undefined;
  }
  const model = exchange.models.find((candidate) => candidate.id === body.model);
  if (!model) {
    openAiError(exchange, 404, `The model \`${body.model}\` does not exist or you do not have access to it.`, {
      param: "model",
      code: "model_not_found",
    });
  }
  return model;
}

function listModels(flavor: Flavor): Handler {
  return (exchange) => {
    const data = exchange.models.map((model) =>
      flavor === "ollama"
        ? { id: model.id, object: "model", created: CREATED, owned_by: "library" }
        : {
            id: model.id,
            object: "model",
            created: CREATED,
            owned_by: "fake",
            max_model_len: model.contextLength ?? DEFAULT_CONTEXT_LENGTH,
          },
    );
    sendJson(exchange, 200, { object: "list", data });
  };
}

function validMessages(exchange: Exchange, messages: unknown): messages is ChatMessage[] {
  if (messages === undefined) {
    openAiError(exchange, 400, "Missing required parameter: 'messages'.", {
      param: "messages",
      code: "missing_required_parameter",
    });
    return false;
  }
  if (!Array.isArray(messages)) {
    openAiError(exchange, 400, "Invalid type for 'messages': expected an array.", {
      param: "messages",
      code: "invalid_type",
    });
    return false;
  }
  if (messages.length === 0) {
    openAiError(exchange, 400, "Invalid 'messages': empty array. Expected an array with minimum length 1.", {
      param: "messages",
      code: "empty_array",
    });
    return false;
  }
  const bad = messages.findIndex((m) => !m || typeof m !== "object" || typeof m.role !== "string");
  if (bad >= 0) {
    openAiError(exchange, 400, `Missing required parameter: 'messages[${bad}].role'.`, {
      param: `messages[${bad}].role`,
      code: "missing_required_parameter",
    });
    return false;
  }
  return true;
}

function chat(flavor: Flavor): Handler {
  return async (exchange) => {
    const body = objectBody(exchange);
    if (!body) return;
    const model = findModel(exchange, body);
    if (!model) return;
    if (!validMessages(exchange, body.messages)) return;
    if (!capabilitiesOf(model).includes("completion")) {
      return openAiError(exchange, 400, `The model \`${model.id}\` does not support chat completions.`, {
        param: "model",
      });
    }
    if (model.responsesOnly) {
      return openAiError(
        exchange,
        400,
        "This model is only supported in v1/responses and not in v1/chat/completions.",
        {
          param: "model",
        },
      );
    }
    const temperature = body.temperature;
    if (temperature !== undefined && (typeof temperature !== "number" || temperature < 0 || temperature > 2)) {
      return openAiError(exchange, 400, "Invalid 'temperature': expected a number between 0 and 2.", {
        param: "temperature",
        code: "decimal_above_max_value",
      });
    }
    const request = body as ChatRequest;
    const answer = buildAnswer(request, exchange.options.reply ?? defaultReply, ++sequence);
    const id = flavor === "ollama" ? `chatcmpl-${sequence}` : `chatcmpl-fake${sequence}`;
    const fingerprint = flavor === "ollama" ? "fp_ollama" : "fp_fake";
    const usage = {
      prompt_tokens: promptTokens(request.messages),
      completion_tokens: answer.completionTokens,
      total_tokens: promptTokens(request.messages) + answer.completionTokens,
    };
    const headers = { "x-request-id": `req_fake${sequence}` };
    if (body.stream === true) {
      const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      await streamChat(exchange, flavor, { id, model: model.id, fingerprint, answer, usage, includeUsage, headers });
      return;
    }
    const toolCalls = answer.toolCalls?.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
    const message = toolCalls
      ? { role: "assistant", content: null, tool_calls: toolCalls, refusal: null }
      : { role: "assistant", content: answer.text, refusal: null };
    const n = typeof body.n === "number" && Number.isInteger(body.n) && body.n > 1 ? Math.min(body.n, 8) : 1;
    const choices = Array.from({ length: n }, (_, index) => ({
      index,
      message,
      logprobs: null,
      finish_reason: answer.finishReason,
    }));
    sendJson(
      exchange,
      200,
      {
        id,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: model.id,
        choices,
        usage,
        system_fingerprint: fingerprint,
      },
      headers,
    );
  };
}

function embeddings(): Handler {
  return (exchange) => {
    const body = objectBody(exchange);
    if (!body) return;
    const model = findModel(exchange, body);
    if (!model) return;
    const inputs = embeddingInputs(body.input);
    if (!inputs) {
      return openAiError(exchange, 400, "'input' must be a non-empty string or array of strings.", { param: "input" });
    }
    if (!capabilitiesOf(model).includes("embedding")) {
      return openAiError(exchange, 400, `The model \`${model.id}\` does not support embeddings.`, { param: "model" });
    }
    const format = body.encoding_format ?? "float";
    if (format !== "float" && format !== "base64") {
      return openAiError(exchange, 400, "'encoding_format' must be 'float' or 'base64'.", {
        param: "encoding_format",
      });
    }
    const dimensions = model.embeddingDimensions ?? DEFAULT_EMBEDDING_DIMENSIONS;
    const data = inputs.map((text, index) => {
      const vector = embeddingOf(text, dimensions);
      return { object: "embedding", index, embedding: format === "base64" ? embeddingToBase64(vector) : vector };
    });
    const tokens = inputs.reduce((sum, text) => sum + countTokens(text), 0);
    sendJson(exchange, 200, {
      object: "list",
      data,
      model: model.id,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  };
}

export function openAiRoutes(flavor: Flavor): Array<[string, Handler]> {
  return [
    ["GET /v1/models", listModels(flavor)],
    ["POST /v1/chat/completions", chat(flavor)],
    ["POST /v1/embeddings", embeddings()],
    ["POST /v1/responses", responsesRoute()],
    ["POST /v1/completions", completionsRoute(flavor)],
  ];
}
