// Anthropic's Messages API as api.anthropic.com serves it: GET /v1/models, POST /v1/messages (JSON and SSE) and
// /v1/messages/count_tokens, with its header checks, validation messages and error shapes
// ({"type":"error","error":{"type","message"}}).
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { streamAnthropic } from "./anthropic-stream.ts";
import { countTokens, defaultReply, textOf } from "./content.ts";
import { buildAnswer } from "./reply.ts";
import { type Exchange, type Handler, sendJson } from "./server.ts";
import type { ChatMessage, ChatRequest, FakeModel } from "./types.ts";

const ALLOWED_FIELDS = new Set([
  "model",
  "messages",
  "max_tokens",
  "system",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "stream",
  "tools",
  "tool_choice",
  "metadata",
  "thinking",
  "service_tier",
]);
const BLOCK_TYPES = new Set([
  "text",
  "image",
  "tool_use",
  "tool_result",
  "document",
  "thinking",
  "redacted_thinking",
  "server_tool_use",
  "web_search_tool_result",
]);
/** What POST /v1/messages/count_tokens takes: a message's input, without what shapes the output. */
const COUNT_FIELDS = new Set(["model", "messages", "system", "tools", "tool_choice", "thinking", "mcp_servers"]);
let sequence = 0;

export function anthropicError(exchange: Exchange, status: number, type: string, message: string): void {
  sendJson(exchange, status, { type: "error", error: { type, message }, request_id: `req_fake${++sequence}` });
}

export function anthropicFaultBody(status: number): unknown {
  const [type, message] =
    status === 529
      ? ["overloaded_error", "Overloaded"]
      : status === 429
        ? ["rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"]
        : status >= 500
          ? ["api_error", "Internal server error"]
          : ["invalid_request_error", `fake fault: status ${status}`];
  return { type: "error", error: { type, message } };
}

/** The documented x-api-key header; newer SDKs send the same key as a Bearer token, which the API also accepts. */
export function anthropicCredential(req: IncomingMessage): string | undefined {
  const key = req.headers["x-api-key"];
  if (typeof key === "string") return key;
  return req.headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
}

export function anthropicUnauthorized(exchange: Exchange, provided: boolean): void {
  anthropicError(
    exchange,
    401,
    "authentication_error",
    provided ? "invalid x-api-key" : "x-api-key header is required",
  );
}

type Block = Record<string, unknown>;

function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

/**
 * The signature of a thinking block: the API signs each block it wrote, and refuses a block given back changed. Here a
 * hash of the text stands for the real cryptographic signature.
 */
export function thinkingSignature(thinking: string): string {
  return createHash("sha256").update(`fake-anthropic-thinking:${thinking}`).digest("base64");
}

/** Extended thinking's own rules (budget, signatures, the block a tool-use turn starts with), or undefined. */
function thinkingProblem(body: Record<string, unknown>, messages: Block[]): string | undefined {
  const thinking = body["thinking"];
  if (thinking === undefined) return undefined;
  const config = thinking as Block | null;
  if (config?.["type"] === "disabled") return undefined;
  if (config?.["type"] !== "enabled") return "thinking.type: Input should be 'enabled' or 'disabled'";
  const budget = config["budget_tokens"];
  if (!Number.isInteger(budget) || (budget as number) < 1024) {
    return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
  }
  if ((budget as number) >= (body["max_tokens"] as number)) {
    return "`max_tokens` must be greater than `thinking.budget_tokens`";
  }
  for (const [index, message] of messages.entries()) {
    if (message["role"] !== "assistant") continue;
    for (const [position, block] of blocksOf(message["content"]).entries()) {
      if (block["type"] !== "thinking") continue;
      if (
        typeof block["signature"] !== "string" ||
        block["signature"] !== thinkingSignature(String(block["thinking"]))
      ) {
        return `messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`;
      }
    }
  }
  const last = messages.findLastIndex((message) => message["role"] === "assistant");
  const blocks = last < 0 ? [] : blocksOf(messages[last]!["content"]);
  const first = blocks[0]?.["type"];
  if (blocks.some((block) => block["type"] === "tool_use") && first !== "thinking" && first !== "redacted_thinking") {
    return (
      `messages.${last}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. ` +
      "When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the " +
      "lastmost set of `tool_use` and `tool_result` blocks). To avoid this requirement, disable `thinking`."
    );
  }
  return undefined;
}

/** The problem with a request body (a message's, or with `counting` a count's), as Anthropic words it, or undefined. */
function validate(body: Record<string, unknown>, exchange: Exchange, counting = false): string | undefined {
  const allowed = counting ? COUNT_FIELDS : ALLOWED_FIELDS;
  for (const field of Object.keys(body)) {
    if (!allowed.has(field)) return `${field}: Extra inputs are not permitted`;
  }
  if (typeof body["model"] !== "string") return "model: Field required";
  if (!counting && body["max_tokens"] === undefined) return "max_tokens: Field required";
  if (!counting && (!Number.isInteger(body["max_tokens"]) || (body["max_tokens"] as number) < 1)) {
    return "max_tokens: Input should be a valid integer greater than or equal to 1";
  }
  const temperature = body["temperature"];
  if (temperature !== undefined && (typeof temperature !== "number" || temperature < 0 || temperature > 1)) {
    return "temperature: Input should be less than or equal to 1";
  }
  if (body["system"] !== undefined && typeof body["system"] !== "string" && !Array.isArray(body["system"])) {
    return "system: Input should be a valid string or list";
  }
  const messages = body["messages"];
  if (!Array.isArray(messages)) return "messages: Field required";
  if (messages.length === 0) return "messages: at least one message is required";
  let pendingToolUses: string[] = [];
  for (const [index, message] of (messages as Block[]).entries()) {
    const role = message?.["role"];
    if (role !== "user" && role !== "assistant") return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    const blocks = blocksOf(message["content"]);
    if (typeof message["content"] !== "string" && !Array.isArray(message["content"])) {
      return `messages.${index}.content: Input should be a valid string or list`;
    }
    for (const [position, block] of blocks.entries()) {
      if (!BLOCK_TYPES.has(block?.["type"] as string)) {
        return `messages.${index}.content.${position}.type: Input tag '${String(block?.["type"])}' found using 'type' does not match any of the expected tags`;
      }
      if (block["type"] === "image") {
        const source = block["source"] as Block | undefined;
        const ok =
          (source?.["type"] === "base64" &&
            typeof source["media_type"] === "string" &&
            typeof source["data"] === "string") ||
          (source?.["type"] === "url" && typeof source["url"] === "string");
        if (!ok) return `messages.${index}.content.${position}.image.source: invalid image source`;
      }
      if (
        block["type"] === "tool_use" &&
        (typeof block["id"] !== "string" || typeof block["name"] !== "string" || typeof block["input"] !== "object")
      ) {
        return `messages.${index}.content.${position}.tool_use: id, name and input are required`;
      }
    }
    const results = blocks.filter((block) => block["type"] === "tool_result").map((block) => block["tool_use_id"]);
    if (role === "user") {
      for (const id of results) {
        if (!pendingToolUses.includes(id as string)) {
          return `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
      const missing = pendingToolUses.filter((id) => !results.includes(id));
      if (missing.length > 0) {
        return `messages.${index - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
      pendingToolUses = [];
    } else {
      if (results.length > 0) return `messages.${index}: tool_result blocks are only allowed in user messages`;
      pendingToolUses = blocks.filter((block) => block["type"] === "tool_use").map((block) => block["id"] as string);
    }
  }
  const thinking = thinkingProblem(body, messages as Block[]);
  if (thinking) return thinking;
  const tools = body["tools"];
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return "tools: Input should be a valid list";
    for (const [index, tool] of (tools as Block[]).entries()) {
      if (typeof tool?.["name"] !== "string") return `tools.${index}.name: Field required`;
      // Anthropic's own tools (web_search_20250305...) are named by their type and have no schema.
      if (typeof tool["type"] === "string" && tool["type"] !== "custom") continue;
      if (!tool["input_schema"] || typeof tool["input_schema"] !== "object")
        return `tools.${index}.input_schema: Field required`;
    }
  }
  if (!exchange.models.some((model) => model.id === body["model"])) return undefined; // 404 below
  return undefined;
}

/** The request as the configured `reply` sees it (OpenAI's shape), so all fakes answer alike. */
export function asChatRequest(body: Record<string, unknown>): ChatRequest {
  const messages: ChatMessage[] = [];
  if (typeof body["system"] === "string") messages.push({ role: "system", content: body["system"] });
  for (const message of body["messages"] as Block[]) {
    const blocks = blocksOf(message["content"]);
    const toolResults = blocks.filter((block) => block["type"] === "tool_result");
    for (const result of toolResults) {
      const content = typeof result["content"] === "string" ? result["content"] : textOf(result["content"]);
      messages.push({ role: "tool", tool_call_id: result["tool_use_id"] as string, content });
    }
    const text = blocks
      .filter((block) => block["type"] === "text")
      .map((block) => block["text"])
      .join("");
    const toolUses = blocks.filter((block) => block["type"] === "tool_use");
    if (text !== "" || toolUses.length > 0 || toolResults.length === 0) {
      messages.push({
        role: message["role"] as string,
        content: text,
        ...(toolUses.length > 0
          ? {
              tool_calls: toolUses.map((use) => ({
                id: use["id"],
                type: "function",
                function: { name: use["name"], arguments: JSON.stringify(use["input"]) },
              })),
            }
          : {}),
      });
    }
  }
  const tools = Array.isArray(body["tools"])
    ? (body["tools"] as Block[])
        .filter((tool) => !isServerTool(tool))
        .map((tool) => ({ type: "function", function: { name: tool["name"] } }))
    : undefined;
  const noTools = (body["tool_choice"] as Block | undefined)?.["type"] === "none";
  return {
    model: body["model"] as string,
    messages,
    ...(tools && !noTools ? { tools } : {}),
    max_tokens: body["max_tokens"],
  };
}

const isServerTool = (tool: Block) => typeof tool["type"] === "string" && tool["type"] !== "custom";

/**
 * The API's web search, when the request offers it and the user just spoke: the search call, its results and an
 * answer citing them, as the API returns them (encrypted_content stands for the API's opaque result).
 */
function webSearch(body: Record<string, unknown>, request: ChatRequest): Block[] | undefined {
  const tools = Array.isArray(body["tools"]) ? (body["tools"] as Block[]) : [];
  if (!tools.some((tool) => String(tool["type"]).startsWith("web_search_"))) return undefined;
  const last = request.messages.at(-1);
  if (last?.role !== "user") return undefined;
  const query = textOf(last.content);
  const id = `srvtoolu_fake${++sequence}`;
  const url = `https://search.example/${encodeURIComponent(query)}`;
  return [
    { type: "server_tool_use", id, name: "web_search", input: { query } },
    {
      type: "web_search_tool_result",
      tool_use_id: id,
      content: [{ type: "web_search_result", url, title: query, encrypted_content: "EqIfake", page_age: null }],
    },
    { type: "text", text: `searched: ${query}` },
  ];
}

function promptTokensOf(request: ChatRequest): number {
  return request.messages.reduce((sum, message) => sum + countTokens(textOf(message.content)) + 3, 0);
}

/** A request's valid body and its model, or undefined once the error is answered (the API's words). */
function checkedRequest(
  exchange: Exchange,
  counting: boolean,
): { body: Record<string, unknown>; model: FakeModel } | undefined {
  if (typeof exchange.req.headers["anthropic-version"] !== "string") {
    anthropicError(exchange, 400, "invalid_request_error", "anthropic-version: header is required");
    return undefined;
  }
  const parsed = exchange.body;
  if (!parsed?.ok || !parsed.value || typeof parsed.value !== "object" || Array.isArray(parsed.value)) {
    anthropicError(exchange, 400, "invalid_request_error", "There was an error parsing the body of your request");
    return undefined;
  }
  const body = parsed.value as Record<string, unknown>;
  const problem = validate(body, exchange, counting);
  if (problem) {
    anthropicError(exchange, 400, "invalid_request_error", problem);
    return undefined;
  }
  const model = exchange.models.find((candidate) => candidate.id === body["model"]);
  if (!model) anthropicError(exchange, 404, "not_found_error", `model: ${String(body["model"])}`);
  return model && { body, model };
}

/**
 * POST /v1/messages/count_tokens: what the message would count as input, tools included (this fake's tokenizer,
 * which is not the gateway's o200k: a test tells the two counts apart).
 */
function countTokensRoute(): Handler {
  return (exchange) => {
    const checked = checkedRequest(exchange, true);
    if (!checked) return;
    const tools = checked.body["tools"] === undefined ? 0 : countTokens(JSON.stringify(checked.body["tools"]));
    sendJson(exchange, 200, { input_tokens: promptTokensOf(asChatRequest(checked.body)) + tools });
  };
}

function messages(): Handler {
  return async (exchange) => {
    const checked = checkedRequest(exchange, false);
    if (!checked) return;
    const { body, model } = checked;
    const request = asChatRequest(body);
    const answer = buildAnswer(request, exchange.options.reply ?? defaultReply, ++sequence);
    const id = `msg_fake${sequence}`;
    const cached = exchange.options.cachedPromptTokens ?? 0;
    const usage = {
      input_tokens: promptTokensOf(request),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached,
      output_tokens: answer.completionTokens,
    };
    const stopReason =
      answer.finishReason === "tool_calls" ? "tool_use" : answer.finishReason === "length" ? "max_tokens" : "end_turn";
    const content: Block[] = answer.toolCalls
      ? answer.toolCalls.map((call) => ({
          type: "tool_use",
          id: `toolu_${call.id.replace(/^call_/, "")}`,
          name: call.name,
          input: JSON.parse(call.arguments),
        }))
      : [{ type: "text", text: answer.text }];
    const searched = webSearch(body, request);
    if (searched) content.splice(0, content.length, ...searched);
    if ((body["thinking"] as Block | undefined)?.["type"] === "enabled") {
      // Extended thinking: the answer starts with the model's reasoning, signed.
      const reasoning = `Thinking about: ${textOf(request.messages.at(-1)?.content ?? "")}`;
      content.unshift({ type: "thinking", thinking: reasoning, signature: thinkingSignature(reasoning) });
    }
    const headers = { "request-id": `req_fake${sequence}` };
    if (body["stream"] === true) {
      await streamAnthropic(exchange, { id, model: model.id, content, stopReason, usage, headers });
      return;
    }
    sendJson(
      exchange,
      200,
      {
        id,
        type: "message",
        role: "assistant",
        model: model.id,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      },
      headers,
    );
  };
}

function listModels(): Handler {
  return (exchange) => {
    const data = exchange.models.map((model) => ({
      type: "model",
      id: model.id,
      display_name: model.id,
      created_at: "2025-02-19T00:00:00Z",
    }));
    sendJson(exchange, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
  };
}

export function anthropicRoutes(): Array<[string, Handler]> {
  return [
    ["GET /v1/models", listModels()],
    ["POST /v1/messages", messages()],
    ["POST /v1/messages/count_tokens", countTokensRoute()],
  ];
}
