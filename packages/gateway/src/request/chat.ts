// A chat completion body once validated (http/validate-chat.ts): what the gateway reads is typed here, once; every
// other field is the client's and is forwarded untouched. Its long texts may be LongText (see long-text.ts).
import type { LongText } from "./long-text.ts";

/** A string of the client's body; a LongText when it stayed in the parse worker. */
type Text = string | LongText;

type ChatRole = "system" | "user" | "assistant" | "tool" | "developer" | "function";

/** One content part: its `type` is checked; the rest is the provider's (`text`, `image_url`, `input_audio`...). */
export interface ContentPart {
  type: string;
  text?: Text;
  [field: string]: unknown;
}

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  /** Absent or null only on an assistant message that calls tools. */
  content?: Text | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  [field: string]: unknown;
}

export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean | null;
  temperature?: number | null;
  stop?: string | string[] | null;
  max_tokens?: number | null;
  tools?: unknown;
  response_format?: unknown;
  [field: string]: unknown;
}
