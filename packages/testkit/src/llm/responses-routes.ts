// OpenAI's Responses API (POST /v1/responses) as OpenAI serves it to a client that keeps its own state (store: false,
// the whole conversation as input: Codex): items in, items out. A reasoning model's reasoning item comes first, with
// its encrypted content when `include` asks for it, and the API refuses such content given back changed; function
// tools are called, the hosted web search runs; the answer is one response object or its semantic event stream.
import { createHmac } from "node:crypto";
import { countTokens, defaultReply, promptTokens, splitIntoChunks, textOf } from "./content.ts";
import { buildAnswer } from "./reply.ts";
import { type Exchange, type Handler, sendJson } from "./server.ts";
import { EventWriter } from "./stream.ts";
import type { ChatMessage, ChatRequest, FakeModel } from "./types.ts";

type Item = Record<string, unknown>;
/** A refusal of the request, in OpenAI's error envelope. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

const SECRET = "fake-openai-reasoning-key";
let sequence = 0;

/** The opaque `encrypted_content` of a reasoning item: its text, sealed so that a changed copy is refused. */
export function sealedReasoning(text: string): string {
  const payload = Buffer.from(text).toString("base64");
  return `${payload}.${createHmac("sha256", SECRET).update(payload).digest("base64url")}`;
}

function unsealed(content: string): string | undefined {
  const [payload, seal] = content.split(".");
  if (payload === undefined || seal !== createHmac("sha256", SECRET).update(payload).digest("base64url")) return;
  return Buffer.from(payload, "base64").toString("utf8");
}

const isObject = (value: unknown): value is Item => !!value && typeof value === "object" && !Array.isArray(value);

/** The conversation the configured reply sees (OpenAI chat's shape, so that every fake answers alike). */
function conversation(body: Item): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (typeof body["instructions"] === "string") messages.push({ role: "system", content: body["instructions"] });
  const input = body["input"];
  if (typeof input === "string") return [...messages, { role: "user", content: input }];
  if (!Array.isArray(input))
    throw new Refusal(400, "Invalid type for 'input': expected a string or an array.", "input");
  input.forEach((item: unknown, index) => {
    if (!isObject(item)) throw new Refusal(400, `Invalid type for 'input[${index}]': expected an object.`);
    const type = item["type"] ?? "message";
    if (type === "message") {
      const role = item["role"] === "developer" ? "system" : String(item["role"]);
      messages.push({ role, content: textOf(item["content"]) } as ChatMessage);
    } else if (type === "function_call") {
      const call = {
        id: String(item["call_id"]),
        type: "function",
        function: { name: item["name"], arguments: item["arguments"] },
      };
      messages.push({ role: "assistant", content: null, tool_calls: [call] } as ChatMessage);
    } else if (type === "function_call_output") {
      messages.push({ role: "tool", tool_call_id: String(item["call_id"]), content: String(item["output"]) });
    } else if (type === "reasoning" && typeof item["encrypted_content"] === "string") {
      if (unsealed(item["encrypted_content"]) === undefined) {
        throw new Refusal(
          400,
          `The encrypted content for item ${String(item["id"])} could not be verified.`,
          null,
          "invalid_encrypted_content",
        );
      }
    }
  });
  return messages;
}

/** The function tools in chat's shape (what the reply reads); hosted ones stay the API's. */
function functionTools(body: Item): unknown[] {
  const tools = Array.isArray(body["tools"]) ? (body["tools"] as unknown[]) : [];
  return tools
    .filter((tool): tool is Item => isObject(tool) && tool["type"] === "function")
    .map((tool) => ({ type: "function", function: { name: tool["name"], parameters: tool["parameters"] } }));
}

const offersWebSearch = (body: Item) =>
  Array.isArray(body["tools"]) &&
  (body["tools"] as unknown[]).some((tool) => isObject(tool) && String(tool["type"]).startsWith("web_search"));

/** The response's output items and usage for this request. */
function outputOf(body: Item, request: ChatRequest, exchange: Exchange) {
  const output: Item[] = [];
  const last = request.messages.at(-1);
  const asked = textOf(last?.content ?? "");
  let reasoningTokens = 0;
  if (isObject(body["reasoning"])) {
    const thought = `Thinking about: ${asked}`;
    reasoningTokens = countTokens(thought);
    const include = Array.isArray(body["include"]) ? body["include"] : [];
    output.push({
      id: `rs_fake${++sequence}`,
      type: "reasoning",
      summary: [{ type: "summary_text", text: thought }],
      ...(include.includes("reasoning.encrypted_content") ? { encrypted_content: sealedReasoning(thought) } : {}),
    });
  }
  const answer = buildAnswer(request, exchange.options.reply ?? defaultReply, ++sequence);
  let text = answer.text;
  if (offersWebSearch(body) && last?.role === "user") {
    output.push({
      id: `ws_fake${++sequence}`,
      type: "web_search_call",
      status: "completed",
      action: { type: "search", query: asked },
    });
    text = `searched: ${asked}`;
  }
  if (answer.toolCalls && text === answer.text) {
    for (const call of answer.toolCalls) {
      output.push({
        id: `fc_fake${++sequence}`,
        type: "function_call",
        status: "completed",
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
      });
    }
  } else {
    output.push({
      id: `msg_fake${++sequence}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [] }],
    });
  }
  const input = promptTokens(request.messages);
  const outputTokens = answer.completionTokens + reasoningTokens;
  const usage = {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: input + outputTokens,
  };
  return { output, usage, cut: answer.finishReason === "length" };
}

export function responsesRoute(): Handler {
  return async (exchange) => {
    const parsed = exchange.body;
    if (!parsed?.ok || !isObject(parsed.value)) {
      return refuse(exchange, new Refusal(400, "The request body must be a JSON object."));
    }
    const body = parsed.value;
    try {
      if (typeof body["model"] !== "string" || body["model"] === "") {
        throw new Refusal(400, "Missing required parameter: 'model'.", "model", "missing_required_parameter");
      }
      const model = exchange.models.find((candidate: FakeModel) => candidate.id === body["model"]);
      if (!model) {
        const message = `The model \`${body["model"]}\` does not exist or you do not have access to it.`;
        throw new Refusal(404, message, "model", "model_not_found");
      }
      // This fake keeps nothing, as for store: false.
      if (typeof body["previous_response_id"] === "string") {
        const message = `Previous response with id '${body["previous_response_id"]}' not found.`;
        throw new Refusal(404, message, "previous_response_id", "previous_response_not_found");
      }
      const limit = body["max_output_tokens"];
      const request: ChatRequest = {
        model: model.id,
        messages: conversation(body),
        tools: functionTools(body),
        ...(typeof limit === "number" ? { max_tokens: limit } : {}),
      };
      const { output, usage, cut } = outputOf(body, request, exchange);
      const response = {
        id: `resp_fake${++sequence}`,
        object: "response",
        created_at: Math.floor(Date.now() / 1000),
        status: cut ? "incomplete" : "completed",
        incomplete_details: cut ? { reason: "max_output_tokens" } : null,
        error: null,
        model: model.id,
        instructions: body["instructions"] ?? null,
        output,
        tools: body["tools"] ?? [],
        store: body["store"] !== false,
        usage,
      };
      if (body["stream"] === true) return await streamResponse(exchange, response);
      sendJson(exchange, 200, response);
    } catch (error) {
      if (error instanceof Refusal) return refuse(exchange, error);
      throw error;
    }
  };
}

function refuse(exchange: Exchange, refusal: Refusal): void {
  const { status, message, param, code } = refusal;
  sendJson(exchange, status, { error: { message, type: "invalid_request_error", param, code } });
}

/** The semantic events: created, in_progress, each item added, filled and done, then completed (or incomplete). */
async function streamResponse(exchange: Exchange, response: Item & { output: Item[] }): Promise<void> {
  const writer = new EventWriter(exchange, "text/event-stream");
  let number = 0;
  const event = (type: string, data: Item) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: number++, ...data })}\n\n`;
  const opening = { ...response, status: "in_progress", output: [], usage: null };
  const events = [
    event("response.created", { response: opening }),
    event("response.in_progress", { response: opening }),
  ];
  response.output.forEach((item, at) => {
    const base = { item_id: item["id"], output_index: at };
    if (item["type"] === "message") {
      const text = String((item["content"] as Item[])[0]?.["text"] ?? "");
      const part = { type: "output_text", text: "", annotations: [] };
      events.push(
        event("response.output_item.added", {
          output_index: at,
          item: { ...item, status: "in_progress", content: [] },
        }),
      );
      events.push(event("response.content_part.added", { ...base, content_index: 0, part }));
      for (const delta of splitIntoChunks(text, exchange.options.chunks ?? 5)) {
        events.push(event("response.output_text.delta", { ...base, content_index: 0, delta }));
      }
      events.push(event("response.output_text.done", { ...base, content_index: 0, text }));
      events.push(event("response.content_part.done", { ...base, content_index: 0, part: { ...part, text } }));
    } else if (item["type"] === "function_call") {
      events.push(
        event("response.output_item.added", {
          output_index: at,
          item: { ...item, status: "in_progress", arguments: "" },
        }),
      );
      events.push(event("response.function_call_arguments.delta", { ...base, delta: item["arguments"] }));
      events.push(event("response.function_call_arguments.done", { ...base, arguments: item["arguments"] }));
    } else {
      events.push(event("response.output_item.added", { output_index: at, item }));
    }
    events.push(event("response.output_item.done", { output_index: at, item }));
  });
  const final = response["status"] === "completed" ? "response.completed" : "response.incomplete";
  events.push(event(final, { response }));
  for (const text of events) {
    if (!(await writer.write(text))) return;
  }
  writer.end();
}
