// An OpenAI Responses request (POST /v1/responses) → the pipeline's chat request.
import type { ChatBody, ChatMessage, ContentPart, ToolCall } from "../../request/chat.ts";
import { ApiError, invalidRequest } from "../../request/errors.ts";
import { isObject } from "../json-object.ts";

export interface TranslatedResponses {
  body: ChatBody;
  stream: boolean;
  /** Whether the response is to be kept (the API's default: yes). */
  store: boolean;
  /** The conversation this request adds to the one it continues (its input, without instructions). */
  input: ChatMessage[];
  /** What the response object echoes of the request. */
  echo: ResponseEcho;
  /**
   * What the request holds that chat completions cannot carry (hosted and custom tools, their calls in the input,
   * stored files), left out of `body`: only OpenAI's own Responses API can take it.
   */
  untranslated: string[];
}

/** The request fields a response object repeats. */
export interface ResponseEcho {
  model: string;
  instructions: string | null;
  tools: unknown[];
  tool_choice: unknown;
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  previous_response_id: string | null;
  text: unknown;
  metadata: unknown;
  store: boolean;
}

/** Translates the request, continuing `previous` (the stored conversation) when it names one. */
export function fromResponsesRequest(value: unknown, previous: ChatMessage[] = []): TranslatedResponses | ApiError {
  if (!isObject(value)) return invalidRequest("Request body must be a JSON object", null, "invalid_type");
  const model = value["model"];
  if (typeof model !== "string" || model === "")
    return invalidRequest("model is required", "model", "missing_required_parameter");
  try {
    const untranslated: string[] = [];
    const input = inputMessages(value["input"], untranslated);
    const instructions = typeof value["instructions"] === "string" ? value["instructions"] : null;
    const messages: ChatMessage[] = [];
    if (instructions) messages.push({ role: "system", content: instructions });
    messages.push(...previous, ...input);
    if (messages.length === 0) throw invalidRequest("input is required", "input", "missing_required_parameter");
    const body: ChatBody = { model, messages };
    const tools = toolsOf(value["tools"], untranslated);
    if (tools.length > 0) body.tools = tools;
    const choice = toolChoiceOf(value["tool_choice"], untranslated);
    if (choice !== undefined) body["tool_choice"] = choice;
    if (typeof value["parallel_tool_calls"] === "boolean") body["parallel_tool_calls"] = value["parallel_tool_calls"];
    const maxTokens = value["max_output_tokens"];
    if (typeof maxTokens === "number") body.max_tokens = maxTokens;
    if (typeof value["temperature"] === "number") body.temperature = value["temperature"];
    if (typeof value["top_p"] === "number") body["top_p"] = value["top_p"];
    if (typeof value["user"] === "string") body["user"] = value["user"];
    const format = formatOf(value["text"]);
    if (format !== undefined) body.response_format = format;
    const stream = value["stream"] === true;
    if (stream) {
      body.stream = true;
      body["stream_options"] = { include_usage: true };
    }
    const store = value["store"] !== false;
    const echo: ResponseEcho = {
      model,
      instructions,
      tools: Array.isArray(value["tools"]) ? value["tools"] : [],
      tool_choice: value["tool_choice"] ?? "auto",
      parallel_tool_calls: value["parallel_tool_calls"] !== false,
      temperature: typeof value["temperature"] === "number" ? value["temperature"] : null,
      top_p: typeof value["top_p"] === "number" ? value["top_p"] : null,
      max_output_tokens: typeof maxTokens === "number" ? maxTokens : null,
      previous_response_id: typeof value["previous_response_id"] === "string" ? value["previous_response_id"] : null,
      text: isObject(value["text"]) ? value["text"] : { format: { type: "text" } },
      metadata: isObject(value["metadata"]) ? value["metadata"] : {},
      store,
    };
    return { body, stream, store, input, echo, untranslated };
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

/** `input` as a string or a list of items → chat messages, in order. */
function inputMessages(input: unknown, untranslated: string[]): ChatMessage[] {
  if (input === undefined || input === null) return [];
  if (typeof input === "string") return [{ role: "user", content: input }];
  if (!Array.isArray(input))
    throw invalidRequest("input must be a string or an array of items", "input", "invalid_type");
  const messages: ChatMessage[] = [];
  input.forEach((item, index) => {
    const where = `input[${index}]`;
    if (!isObject(item)) throw invalidRequest(`${where} must be an object`, where, "invalid_type");
    const type = item["type"] ?? "message";
    if (type === "message") messages.push(messageOf(item, where, untranslated));
    else if (type === "function_call") {
      const call: ToolCall = {
        id: stringField(item, "call_id", where),
        type: "function",
        function: { name: stringField(item, "name", where), arguments: String(item["arguments"] ?? "{}") },
      };
      // Parallel calls are one assistant message with several tool calls.
      const last = messages[messages.length - 1];
      if (last?.role === "assistant") last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
    } else if (type === "function_call_output") {
      const output = item["output"];
      const content = typeof output === "string" ? output : textOfParts(output);
      messages.push({ role: "tool", tool_call_id: stringField(item, "call_id", where), content });
    } else if (typeof type !== "string") {
      throw invalidRequest(`${where}.type must be a string`, `${where}.type`, "invalid_type");
    } else if (type !== "reasoning") {
      // A hosted or custom tool's call or output (web_search_call, custom_tool_call, local_shell_call...).
      untranslated.push(`${where}: a ${JSON.stringify(type)} item`);
    }
  });
  return messages;
}

function messageOf(item: Record<string, unknown>, where: string, untranslated: string[]): ChatMessage {
  const role = item["role"];
  if (role !== "user" && role !== "assistant" && role !== "system" && role !== "developer") {
    throw invalidRequest(`${where}.role must be user, assistant, system or developer`, `${where}.role`);
  }
  const content = item["content"];
  if (typeof content === "string") return { role, content };
  if (!Array.isArray(content))
    throw invalidRequest(`${where}.content must be a string or an array`, `${where}.content`);
  if (role === "assistant") return { role, content: textOfParts(content) };
  const parts: ContentPart[] = [];
  content.forEach((part, index) => {
    const at = `${where}.content[${index}]`;
    if (!isObject(part)) throw invalidRequest(`${at} must be an object`, at, "invalid_type");
    const type = part["type"];
    if ((type === "input_text" || type === "output_text") && typeof part["text"] === "string") {
      parts.push({ type: "text", text: part["text"] });
    } else if (type === "input_image" && typeof part["image_url"] === "string") {
      const image: Record<string, unknown> = { url: part["image_url"] };
      if (typeof part["detail"] === "string") image["detail"] = part["detail"];
      parts.push({ type: "image_url", image_url: image });
    } else if (type === "input_file" && typeof part["file_data"] === "string") {
      parts.push({ type: "file", file: { file_data: part["file_data"], filename: part["filename"] ?? "file" } });
    } else if (typeof type === "string") {
      // A stored file or image by id, which only OpenAI holds.
      untranslated.push(`${at}: ${JSON.stringify(type)} by file id`);
    } else {
      throw invalidRequest(`${at}.type must be a string`, `${at}.type`, "invalid_type");
    }
  });
  return { role, content: parts };
}

function textOfParts(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content.map((part) => (isObject(part) && typeof part["text"] === "string" ? part["text"] : "")).join("");
}

function stringField(item: Record<string, unknown>, field: string, where: string): string {
  const value = item[field];
  if (typeof value !== "string" || value === "") {
    throw invalidRequest(`${where}.${field} is required`, `${where}.${field}`, "missing_required_parameter");
  }
  return value;
}

/** Function tools → chat's; the others (hosted: web search, file search, MCP...; custom; local shell) are listed. */
function toolsOf(tools: unknown, untranslated: string[]): unknown[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalidRequest("tools must be an array", "tools", "invalid_type");
  const functions: unknown[] = [];
  tools.forEach((tool, index) => {
    if (!isObject(tool) || typeof tool["type"] !== "string") {
      throw invalidRequest(`tools[${index}] must be an object with a type`, `tools[${index}]`, "invalid_type");
    }
    if (tool["type"] !== "function") {
      untranslated.push(`tools[${index}]: the ${JSON.stringify(tool["type"])} tool`);
      return;
    }
    if (typeof tool["name"] !== "string") {
      throw invalidRequest(`tools[${index}].name is required`, `tools[${index}].name`, "missing_required_parameter");
    }
    const fn: Record<string, unknown> = { name: tool["name"] };
    if (typeof tool["description"] === "string") fn["description"] = tool["description"];
    if (isObject(tool["parameters"])) fn["parameters"] = tool["parameters"];
    if (typeof tool["strict"] === "boolean") fn["strict"] = tool["strict"];
    functions.push({ type: "function", function: fn });
  });
  return functions;
}

function toolChoiceOf(choice: unknown, untranslated: string[]): unknown {
  if (choice === undefined || choice === null) return undefined;
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (isObject(choice) && choice["type"] === "function" && typeof choice["name"] === "string") {
    return { type: "function", function: { name: choice["name"] } };
  }
  if (isObject(choice) && typeof choice["type"] === "string") {
    untranslated.push(`tool_choice: the ${JSON.stringify(choice["type"])} tool`);
    return undefined;
  }
  throw invalidRequest("tool_choice must be auto, none, required or a tool", "tool_choice");
}

/** `text.format` → `response_format`. */
function formatOf(text: unknown): unknown {
  const format = isObject(text) ? text["format"] : undefined;
  if (!isObject(format) || format["type"] === "text") return undefined;
  if (format["type"] === "json_object") return { type: "json_object" };
  if (format["type"] === "json_schema") {
    const schema: Record<string, unknown> = { name: format["name"] ?? "response", schema: format["schema"] ?? {} };
    if (typeof format["strict"] === "boolean") schema["strict"] = format["strict"];
    if (typeof format["description"] === "string") schema["description"] = format["description"];
    return { type: "json_schema", json_schema: schema };
  }
  throw invalidRequest(`text.format.type ${JSON.stringify(format["type"])} is not supported`, "text.format");
}
