// Google's Gemini API as generativelanguage.googleapis.com serves it: GET /v1beta/models,
// POST /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse, the key in x-goog-api-key (or ?key=),
// :countTokens, and its error shape ({"error":{"code","message","status"}}). A function call it answers carries a
// thoughtSignature, as Gemini's thinking models' do; given back changed in a later request, it is refused (a client
// that passes requests through a gateway must keep it as written).
import { createHmac } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { countTokens, DEFAULT_CONTEXT_LENGTH, defaultReply } from "./content.ts";
import { batchEmbed } from "./google-embed.ts";
import { streamGemini } from "./google-stream.ts";
import { buildAnswer } from "./reply.ts";
import { type Exchange, type Handler, sendJson } from "./server.ts";
import type { ChatMessage, ChatRequest } from "./types.ts";

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};
const ALLOWED_FIELDS = new Set([
  "contents",
  "systemInstruction",
  "tools",
  "toolConfig",
  "generationConfig",
  "safetySettings",
  "cachedContent",
]);
const GENERATION_FIELDS = new Set([
  "temperature",
  "topP",
  "topK",
  "maxOutputTokens",
  "stopSequences",
  "candidateCount",
  "presencePenalty",
  "frequencyPenalty",
  "seed",
  "responseMimeType",
  "responseSchema",
  "responseJsonSchema",
  "thinkingConfig",
]);
const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|batchEmbedContents|countTokens)$/;
const SIGNING_KEY = "fake-gemini-thoughts";

/** The opaque signature of a function call: sealed over its name and arguments. */
export function thoughtSignatureOf(call: { name?: unknown; args?: unknown }): string {
  return createHmac("sha256", SIGNING_KEY)
    .update(JSON.stringify([call.name, call.args ?? {}]))
    .digest("base64");
}
let sequence = 0;

export function googleError(exchange: Exchange, status: number, message: string, details?: unknown[]): void {
  const error: Record<string, unknown> = { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" };
  if (details) error["details"] = details;
  sendJson(exchange, status, { error });
}

export function googleFaultBody(status: number): unknown {
  const message =
    status === 429
      ? "Resource has been exhausted (e.g. check quota)."
      : status === 503
        ? "The model is overloaded. Please try again later."
        : `fake fault: status ${status}`;
  return { error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" } };
}

export function googleCredential(req: IncomingMessage, query: URLSearchParams): string | undefined {
  const header = req.headers["x-goog-api-key"];
  return typeof header === "string" ? header : (query.get("key") ?? undefined);
}

export function googleUnauthorized(exchange: Exchange, provided: boolean): void {
  if (!provided) {
    googleError(
      exchange,
      403,
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
    return;
  }
  googleError(exchange, 400, "API key not valid. Please pass a valid API key.", [
    { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com" },
  ]);
}

type Part = Record<string, unknown>;
type Content = { role?: unknown; parts?: unknown };

function validate(body: Record<string, unknown>): string | undefined {
  for (const field of Object.keys(body)) {
    if (!ALLOWED_FIELDS.has(field)) return `Invalid JSON payload received. Unknown name "${field}": Cannot find field.`;
  }
  const config = body["generationConfig"] as Record<string, unknown> | undefined;
  for (const field of Object.keys(config ?? {})) {
    if (!GENERATION_FIELDS.has(field)) {
      return `Invalid JSON payload received. Unknown name "${field}" at 'generation_config': Cannot find field.`;
    }
  }
  const contents = body["contents"];
  if (!Array.isArray(contents) || contents.length === 0)
    return "* GenerateContentRequest.contents: contents is not specified";
  let lastCalls: string[] = [];
  for (const [index, content] of (contents as Content[]).entries()) {
    if (content.role !== "user" && content.role !== "model") {
      return `Please use a valid role: user, model. (contents[${index}].role = ${String(content.role)})`;
    }
    if (!Array.isArray(content.parts) || content.parts.length === 0) {
      return `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.`;
    }
    const parts = content.parts as Part[];
    for (const part of parts) {
      const call = part["functionCall"] as Part | undefined;
      const signature = part["thoughtSignature"];
      if (call && signature !== undefined && signature !== thoughtSignatureOf(call)) {
        return `Corrupted thought signature. (contents[${index}])`;
      }
      const kinds = ["text", "inlineData", "fileData", "functionCall", "functionResponse"].filter((key) => key in part);
      if (kinds.length !== 1)
        return `* GenerateContentRequest.contents[${index}].parts: a part must hold exactly one kind of data`;
      const response = part["functionResponse"] as Part | undefined;
      if (response) {
        if (content.role !== "user") return `contents[${index}]: function responses must come from the user role`;
        if (!lastCalls.includes(response["name"] as string)) {
          return `Please ensure that function response turn comes immediately after a function call turn. (${String(response["name"])})`;
        }
        if (!response["response"] || typeof response["response"] !== "object") {
          return `* GenerateContentRequest.contents[${index}].parts.function_response.response: must be an object`;
        }
      }
    }
    lastCalls = parts
      .map((part) => (part["functionCall"] as Part | undefined)?.["name"])
      .filter((name): name is string => typeof name === "string");
  }
  return undefined;
}

function textOfParts(parts: Part[]): string {
  return parts.map((part) => (typeof part["text"] === "string" ? part["text"] : "")).join("");
}

function asChatRequest(model: string, body: Record<string, unknown>): ChatRequest {
  const messages: ChatMessage[] = [];
  const system = body["systemInstruction"] as { parts?: Part[] } | undefined;
  if (system?.parts) messages.push({ role: "system", content: textOfParts(system.parts) });
  for (const content of body["contents"] as Content[]) {
    const parts = content.parts as Part[];
    for (const part of parts) {
      const response = part["functionResponse"] as Part | undefined;
      if (response) messages.push({ role: "tool", content: JSON.stringify(response["response"]) });
    }
    const calls = parts.filter((part) => part["functionCall"]);
    const text = textOfParts(parts);
    if (text !== "" || calls.length > 0) {
      messages.push({
        role: content.role === "model" ? "assistant" : "user",
        content: text,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
    }
  }
  const declarations = ((body["tools"] as Array<{ functionDeclarations?: Part[] }> | undefined) ?? []).flatMap(
    (tool) => tool.functionDeclarations ?? [],
  );
  const mode = (body["toolConfig"] as { functionCallingConfig?: { mode?: string } } | undefined)?.functionCallingConfig
    ?.mode;
  const tools = declarations.map((declaration) => ({ type: "function", function: { name: declaration["name"] } }));
  const config = body["generationConfig"] as Record<string, unknown> | undefined;
  return {
    model,
    messages,
    ...(tools.length > 0 && mode !== "NONE" ? { tools } : {}),
    max_tokens: config?.["maxOutputTokens"],
  };
}

function generate(exchange: Exchange, model: string, method: string): Promise<void> | void {
  const parsed = exchange.body;
  if (!parsed?.ok || !parsed.value || typeof parsed.value !== "object" || Array.isArray(parsed.value)) {
    return googleError(exchange, 400, "Invalid JSON payload received.");
  }
  const body = parsed.value as Record<string, unknown>;
  const problem = validate(body);
  if (problem) return googleError(exchange, 400, problem);
  const known = exchange.models.find((candidate) => candidate.id === model);
  if (!known) {
    return googleError(
      exchange,
      404,
      `models/${model} is not found for API version v1beta, or is not supported for generateContent.`,
    );
  }
  const request = asChatRequest(model, body);
  const answer = buildAnswer(request, exchange.options.reply ?? defaultReply, ++sequence);
  const prompt = request.messages.reduce((sum, message) => sum + countTokens(String(message.content ?? "")) + 3, 0);
  const cached = exchange.options.cachedPromptTokens ?? 0;
  const usageMetadata: Record<string, number> = {
    promptTokenCount: prompt + cached,
    candidatesTokenCount: answer.completionTokens,
    totalTokenCount: prompt + cached + answer.completionTokens,
  };
  if (cached > 0) usageMetadata["cachedContentTokenCount"] = cached;
  const finishReason = answer.finishReason === "length" ? "MAX_TOKENS" : "STOP";
  const responseId = `fake${sequence}`;
  const parts: Part[] = answer.toolCalls
    ? answer.toolCalls.map((call) => {
        const functionCall = { name: call.name, args: JSON.parse(call.arguments) };
        return { functionCall, thoughtSignature: thoughtSignatureOf(functionCall) };
      })
    : [{ text: answer.text }];
  if (method === "streamGenerateContent") {
    if (exchange.query.get("alt") !== "sse") {
      return googleError(exchange, 400, "this simulator streams only with alt=sse");
    }
    return streamGemini(exchange, { parts, finishReason, usageMetadata, modelVersion: model, responseId });
  }
  sendJson(exchange, 200, {
    candidates: [{ content: { parts, role: "model" }, finishReason, index: 0 }],
    usageMetadata,
    modelVersion: model,
    responseId,
  });
}

/**
 * :countTokens over {contents} or {generateContentRequest}: the text of every part, by this simulator's own count (so
 * that a test tells it from the gateway's local estimate).
 */
function countContentTokens(exchange: Exchange, model: string) {
  const parsed = exchange.body;
  const value = parsed?.ok ? (parsed.value as Record<string, unknown> | null) : null;
  if (!value || typeof value !== "object") return googleError(exchange, 400, "Invalid JSON payload received.");
  const nested = value["generateContentRequest"] as Record<string, unknown> | undefined;
  if (nested !== undefined && nested["model"] !== `models/${model}`) {
    return googleError(exchange, 400, `generateContentRequest.model must be models/${model}`);
  }
  const contents = (nested ?? value)["contents"];
  if (!Array.isArray(contents))
    return googleError(exchange, 400, "* CountTokensRequest.contents: contents is not specified");
  if (!exchange.models.some((candidate) => candidate.id === model)) {
    return googleError(exchange, 404, `models/${model} is not found for API version v1beta.`);
  }
  const text = (contents as Content[])
    .map((content) => textOfParts((content.parts as Part[] | undefined) ?? []))
    .join("");
  sendJson(exchange, 200, { totalTokens: text.length * 2 + contents.length });
}

function listModels(): Handler {
  return (exchange) => {
    const models = exchange.models.map((model) => {
      const embedding = model.capabilities?.includes("embedding") ?? false;
      return {
        name: `models/${model.id}`,
        version: "001",
        displayName: model.id,
        inputTokenLimit: model.contextLength ?? DEFAULT_CONTEXT_LENGTH,
        outputTokenLimit: 8192,
        supportedGenerationMethods: embedding ? ["embedContent"] : ["generateContent", "countTokens"],
      };
    });
    sendJson(exchange, 200, { models });
  };
}

export function googleRoutes(): Array<[string, Handler]> {
  return [["GET /v1beta/models", listModels()]];
}

/** The routes with the model in the path. */
export function googleRoute(method: string, path: string): Handler | undefined {
  const match = method === "POST" ? ROUTE.exec(path) : null;
  if (!match) return undefined;
  const model = decodeURIComponent(match[1]!);
  const action = match[2]!;
  if (action === "batchEmbedContents") return (exchange) => batchEmbed(exchange, model, googleError);
  if (action === "countTokens") return (exchange) => countContentTokens(exchange, model);
  return (exchange) => generate(exchange, model, action);
}
