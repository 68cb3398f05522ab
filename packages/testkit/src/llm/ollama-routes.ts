// Ollama's native API: /api/version, /api/tags, /api/show, /api/ps, /api/chat, /api/generate, /api/embed(dings).
import {
  capabilitiesOf,
  countTokens,
  DEFAULT_CONTEXT_LENGTH,
  DEFAULT_EMBEDDING_DIMENSIONS,
  defaultReply,
  embeddingInputs,
  embeddingOf,
  promptTokens,
  splitIntoChunks,
  textOf,
} from "./content.ts";
import { buildAnswer } from "./reply.ts";
import { type Exchange, type Handler, sendJson } from "./server.ts";
import { EventWriter } from "./stream.ts";
import type { ChatMessage, ChatRequest, FakeModel } from "./types.ts";

export const OLLAMA_VERSION = "0.12.6";
const MODIFIED_AT = "2025-10-01T12:00:00.000000000Z";
const ARCHITECTURE = "llama";

export function ollamaError(exchange: Exchange, status: number, message: string): void {
  sendJson(exchange, status, { error: message });
}

function objectBody(exchange: Exchange): Record<string, unknown> | undefined {
  const body = exchange.body;
  if (body === undefined) {
    ollamaError(exchange, 400, "missing request body");
    return undefined;
  }
  if (!body.ok || !body.value || typeof body.value !== "object" || Array.isArray(body.value)) {
    ollamaError(exchange, 400, "invalid character in request body: expected a JSON object");
    return undefined;
  }
  return body.value as Record<string, unknown>;
}

/** The model named by `model` (or the older `name`), or an error answer. */
function findModel(exchange: Exchange, body: Record<string, unknown>): FakeModel | undefined {
  const name = typeof body.model === "string" ? body.model : typeof body.name === "string" ? body.name : "";
  if (name === "") {
    ollamaError(exchange, 400, "model is required");
    return undefined;
  }
  const model = exchange.models.find((candidate) => candidate.id === name);
  if (!model) ollamaError(exchange, 404, `model '${name}' not found`);
  return model;
}

/** Ollama reports completion, vision, tools, embedding; JSON mode is not a capability it lists. */
function ollamaCapabilities(model: FakeModel): string[] {
  return capabilitiesOf(model).filter((capability) => capability !== "json");
}

const details = {
  parent_model: "",
  format: "gguf",
  family: ARCHITECTURE,
  families: [ARCHITECTURE],
  parameter_size: "8.0B",
  quantization_level: "Q4_K_M",
};

function digestOf(id: string): string {
  return Buffer.from(id).toString("hex").padEnd(64, "0").slice(0, 64);
}

const tags: Handler = (exchange) => {
  const models = exchange.models.map((model) => ({
    name: model.id,
    model: model.id,
    modified_at: MODIFIED_AT,
    size: 4_920_753_328,
    digest: digestOf(model.id),
    details,
  }));
  sendJson(exchange, 200, { models });
};

const ps: Handler = (exchange) => {
  const models = exchange.models
    .filter((model) => exchange.loaded.has(model.id))
    .map((model) => ({
      name: model.id,
      model: model.id,
      size: 6_654_289_920,
      digest: digestOf(model.id),
      details,
      expires_at: "2099-01-01T00:00:00Z",
      size_vram: 6_654_289_920,
      context_length: model.contextLength ?? DEFAULT_CONTEXT_LENGTH,
    }));
  sendJson(exchange, 200, { models });
};

const show: Handler = (exchange) => {
  const body = objectBody(exchange);
  if (!body) return;
  const model = findModel(exchange, body);
  if (!model) return;
  sendJson(exchange, 200, {
    license: "fake license",
    modelfile: `FROM ${model.id}`,
    parameters: 'stop                           "<|eot_id|>"',
    // A code model's template takes the suffix (fill-in-the-middle), as CodeLlama's does; the others only the prompt.
    template: capabilitiesOf(model).includes("insert")
      ? "{{- if .Suffix }}<PRE> {{ .Prompt }} <SUF>{{ .Suffix }} <MID>{{- else }}{{ .Prompt }}{{- end }}"
      : "{{ .Prompt }}",
    details,
    model_info: {
      "general.architecture": ARCHITECTURE,
      "general.parameter_count": 8_030_261_248,
      [`${ARCHITECTURE}.context_length`]: model.contextLength ?? DEFAULT_CONTEXT_LENGTH,
      [`${ARCHITECTURE}.embedding_length`]: model.embeddingDimensions ?? DEFAULT_EMBEDDING_DIMENSIONS,
    },
    capabilities: ollamaCapabilities(model),
    modified_at: MODIFIED_AT,
  });
};

function stats(promptCount: number, evalCount: number) {
  return {
    total_duration: 1_000_000,
    load_duration: 100_000,
    prompt_eval_count: promptCount,
    prompt_eval_duration: 200_000,
    eval_count: evalCount,
    eval_duration: 700_000,
  };
}

/** Ollama sends tool arguments as a JSON object (text that is not JSON stays text). */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Shared by /api/chat and /api/generate: `shape` turns a piece of text into that endpoint's fields. */
async function answer(
  exchange: Exchange,
  body: Record<string, unknown>,
  model: FakeModel,
  request: ChatRequest,
  shape: (text: string, toolCalls?: unknown[], thinking?: string) => Record<string, unknown>,
): Promise<void> {
  if (!capabilitiesOf(model).includes("completion")) {
    return ollamaError(exchange, 400, `"${model.id}" does not support ${"prompt" in body ? "generate" : "chat"}`);
  }
  const result = buildAnswer(request, exchange.options.reply ?? defaultReply, Date.now());
  const toolCalls = result.toolCalls?.map((call, index) => ({
    id: call.id,
    function: { index, name: call.name, arguments: parseArguments(call.arguments) },
  }));
  const doneReason = result.finishReason === "length" ? "length" : "stop";
  // `think` (true or a level): the model's reasoning comes first, in its own field.
  const thinking =
    body.think === true || typeof body.think === "string"
      ? `Thinking about: ${textOf(request.messages.at(-1)?.content ?? "")}`
      : undefined;
  // The prompt is cut to the context window, options.num_ctx (Ollama's default 4096): the count says what was read.
  const options = (body.options ?? {}) as Record<string, unknown>;
  const context = typeof options["num_ctx"] === "number" ? options["num_ctx"] : 4096;
  const read = Math.min(promptTokens(request.messages), context);
  const final = (text: string, reasoning?: string) => ({
    model: model.id,
    created_at: new Date().toISOString(),
    ...shape(text, toolCalls, reasoning),
    done: true,
    done_reason: doneReason,
    ...stats(read, result.completionTokens),
  });
  if (body.stream === false) return sendJson(exchange, 200, final(result.text, thinking));
  const writer = new EventWriter(exchange, "application/x-ndjson");
  const line = (value: unknown) => `${JSON.stringify(value)}\n`;
  const partial = (fields: Record<string, unknown>) => ({
    model: model.id,
    created_at: new Date().toISOString(),
    ...fields,
    done: false,
  });
  const lines = toolCalls
    ? [partial(shape("", toolCalls))]
    : splitIntoChunks(result.text, exchange.options.chunks ?? 5).map((piece) => partial(shape(piece)));
  if (thinking !== undefined) lines.unshift(partial(shape("", undefined, thinking)));
  for (const item of lines) {
    if (!(await writer.write(line(item)))) return;
  }
  if (!(await writer.write(line(final(""))))) return;
  writer.end();
}

const chat: Handler = async (exchange) => {
  const body = objectBody(exchange);
  if (!body) return;
  const model = findModel(exchange, body);
  if (!model) return;
  const messages = body.messages ?? [];
  if (!Array.isArray(messages) || messages.some((m) => !m || typeof m !== "object" || typeof m.role !== "string")) {
    return ollamaError(exchange, 400, "invalid message format: each message needs a role");
  }
  if (messages.length === 0) {
    return sendJson(exchange, 200, {
      model: model.id,
      created_at: new Date().toISOString(),
      message: { role: "assistant", content: "" },
      done_reason: "load",
      done: true,
    });
  }
  const request = { ...body, model: model.id, messages: messages as ChatMessage[] } as ChatRequest;
  await answer(exchange, body, model, request, (text, toolCalls, thinking) => ({
    message: {
      role: "assistant",
      content: text,
      ...(thinking === undefined ? {} : { thinking }),
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
    },
  }));
};

const generate: Handler = async (exchange) => {
  const body = objectBody(exchange);
  if (!body) return;
  const model = findModel(exchange, body);
  if (!model) return;
  const prompt = typeof body.prompt === "string" ? body.prompt : "";
  if (prompt === "") {
    const unload = body.keep_alive === 0 || body.keep_alive === "0";
    if (unload) exchange.loaded.delete(model.id);
    else exchange.loaded.add(model.id);
    return sendJson(exchange, 200, {
      model: model.id,
      created_at: new Date().toISOString(),
      response: "",
      done: true,
      done_reason: unload ? "unload" : "load",
    });
  }
  // A suffix asks for the middle: only a model whose template takes one (capability insert) does it, and the
  // model reads both ends through that template (CodeLlama's here). raw skips the template: the prompt as written.
  const suffix = typeof body.suffix === "string" ? body.suffix : "";
  if (suffix !== "" && !capabilitiesOf(model).includes("insert")) {
    return ollamaError(exchange, 400, `"${model.id}" does not support insert`);
  }
  const content = suffix === "" || body.raw === true ? prompt : `<PRE> ${prompt} <SUF>${suffix} <MID>`;
  const request: ChatRequest = { model: model.id, messages: [{ role: "user", content }] };
  await answer(exchange, body, model, request, (text, _toolCalls, thinking) => ({
    response: text,
    ...(thinking === undefined ? {} : { thinking }),
  }));
};

/**
 * POST /api/pull: NDJSON progress as Ollama streams it ("pulling manifest", "pulling <digest>" with total and
 * completed, "verifying sha256 digest", "writing manifest", "success"), or one JSON object with `stream: false`. A
 * model in neither `models` nor `library` fails after the manifest line, as Ollama does.
 */
const pull: Handler = async (exchange) => {
  const body = objectBody(exchange);
  if (!body) return;
  const name = typeof body.model === "string" ? body.model : typeof body.name === "string" ? body.name : "";
  if (name === "") return ollamaError(exchange, 400, "model is required");
  const model =
    exchange.models.find((candidate) => candidate.id === name) ??
    exchange.options.library?.find((candidate) => candidate.id === name);
  const lines: Record<string, unknown>[] = [{ status: "pulling manifest" }];
  if (!model) lines.push({ error: "pull model manifest: file does not exist" });
  else {
    const steps = exchange.options.pullSteps ?? 5;
    const total = 4_920_753_328;
    const digest = `sha256:${digestOf(model.id)}`;
    for (let step = 1; step <= steps; step++) {
      lines.push({
        status: `pulling ${digest.slice(7, 19)}`,
        digest,
        total,
        completed: Math.round((total * step) / steps),
      });
    }
    lines.push({ status: "verifying sha256 digest" }, { status: "writing manifest" }, { status: "success" });
  }
  if (body.stream === false) {
    const last = lines.at(-1)!;
    if (model) exchange.addModel(model);
    return sendJson(exchange, "error" in last ? 500 : 200, last);
  }
  exchange.res.writeHead(200, { "content-type": "application/x-ndjson" });
  for (const line of lines) {
    if (exchange.res.destroyed) return;
    if (line.status === "success" && model) exchange.addModel(model);
    exchange.res.write(`${JSON.stringify(line)}\n`);
    await new Promise((resolve) => setTimeout(resolve, exchange.options.pullStepMs ?? 20));
  }
  exchange.res.end();
};

function embeddingModel(exchange: Exchange, body: Record<string, unknown>): FakeModel | undefined {
  const model = findModel(exchange, body);
  if (model && !capabilitiesOf(model).includes("embedding")) {
    ollamaError(exchange, 400, `"${model.id}" does not support embeddings`);
    return undefined;
  }
  return model;
}

const embed: Handler = (exchange) => {
  const body = objectBody(exchange);
  if (!body) return;
  const model = embeddingModel(exchange, body);
  if (!model) return;
  const inputs = embeddingInputs(body.input);
  if (!inputs) return ollamaError(exchange, 400, "invalid input type: input must be a string or an array of strings");
  const dimensions = model.embeddingDimensions ?? DEFAULT_EMBEDDING_DIMENSIONS;
  sendJson(exchange, 200, {
    model: model.id,
    embeddings: inputs.map((text) => embeddingOf(text, dimensions)),
    total_duration: 1_000_000,
    load_duration: 100_000,
    prompt_eval_count: inputs.reduce((sum, text) => sum + countTokens(text), 0),
  });
};

/** The older single-prompt endpoint. */
const legacyEmbeddings: Handler = (exchange) => {
  const body = objectBody(exchange);
  if (!body) return;
  const model = embeddingModel(exchange, body);
  if (!model) return;
  const prompt = typeof body.prompt === "string" ? body.prompt : "";
  sendJson(exchange, 200, {
    embedding: embeddingOf(prompt, model.embeddingDimensions ?? DEFAULT_EMBEDDING_DIMENSIONS),
  });
};

export function ollamaRoutes(): Array<[string, Handler]> {
  return [
    [
      "GET /",
      (exchange) => {
        exchange.res.writeHead(200, { "content-type": "text/plain" }).end("Ollama is running");
      },
    ],
    ["GET /api/version", (exchange) => sendJson(exchange, 200, { version: OLLAMA_VERSION })],
    ["GET /api/tags", tags],
    ["GET /api/ps", ps],
    ["POST /api/show", show],
    ["POST /api/chat", chat],
    ["POST /api/generate", generate],
    ["POST /api/pull", pull],
    ["POST /api/embed", embed],
    ["POST /api/embeddings", legacyEmbeddings],
  ];
}
