// The Bot API methods the simulator answers, with the platform's parameter rules and error texts. Each handler gets
// the calling bot and the request's parameters (JSON, form or query, already merged) and returns the `result`, or
// throws a BotApiError. getUpdates is a long poll: held until an update is queued or `timeout` seconds pass.
import { BotApiError, badRequest, conflict, forbidden } from "./bot-api-error.ts";
import { isUploadedFile, mediaFields } from "./files.ts";
import { type MessageEntity, parseText } from "./formatting.ts";
import type { UploadLimits } from "./upload-limits.ts";
import type { BotState, ChatState, StoredMessage, Update, World } from "./world.ts";

export type Params = Record<string, unknown>;

export interface MethodContext {
  world: World;
  bot: BotState;
  params: Params;
  /** Aborted when the client goes away (a held long poll then ends quietly). */
  signal: AbortSignal;
  /** Records what a bot did to a chat, for the test's eyes. */
  record(action: BotAction): void;
  /** What uploads the server refuses. */
  uploads: UploadLimits;
}

export interface BotAction {
  /** The bot's username. */
  bot: string;
  method: "sendMessage" | "editMessageText" | "deleteMessage" | "sendPhoto" | "sendDocument";
  chatId: number;
  messageId: number;
  /** Text as users see it (markup parsed away), and the entities the markup made. */
  text: string;
  entities: MessageEntity[];
  /** The text exactly as the bot sent it, and its parse_mode. */
  rawText: string;
  parseMode: string;
  threadId?: number;
  replyTo?: number;
  linkPreviewDisabled: boolean;
  /** sendPhoto, sendDocument: the file as uploaded. */
  file?: { name: string; data: Buffer };
}

type Handler = (context: MethodContext) => unknown;

/** A result the platform answers with a `description` beside it (the webhook methods). */
export class Described {
  constructor(
    readonly result: unknown,
    readonly description: string,
  ) {}
}

const MAX_TEXT = 4096;
const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

function integer(params: Params, name: string, required: true): number;
function integer(params: Params, name: string, required?: false): number | undefined;
function integer(params: Params, name: string, required = false): number | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === "") {
    if (required) throw badRequest(`${name} is empty`);
    return undefined;
  }
  const number = typeof value === "number" ? value : Number(value);
  if (!Number.isSafeInteger(number)) throw badRequest(`invalid ${name} specified`);
  return number;
}

function string(params: Params, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : String(value);
}

/** Form and query parameters carry objects as JSON text. */
function object(params: Params, name: string): Params | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "object") return value as Params;
  try {
    const parsed = JSON.parse(String(value)) as unknown;
    if (typeof parsed === "object" && parsed !== null) return parsed as Params;
  } catch {}
  throw badRequest(`can't parse ${name} JSON object`);
}

/** The chat named by chat_id (an id or "@username") that the bot is a member of. */
function memberChat({ world, bot, params }: MethodContext): ChatState {
  const raw = params.chat_id;
  if (raw === undefined || raw === null || raw === "") throw badRequest("chat_id is empty");
  const text = String(raw);
  const chat = text.startsWith("@") ? world.chatByUsername(text) : world.chats.get(Number(text));
  if (chat === undefined) throw badRequest("chat not found");
  if (!chat.members.has(bot.user.id)) throw forbidden(`bot is not a member of the ${chat.kind}`);
  return chat;
}

function formatted(params: Params): { text: string; entities: MessageEntity[]; raw: string; mode: string } {
  const raw = string(params, "text") ?? "";
  const mode = string(params, "parse_mode") ?? "";
  const parsed =
    mode === "" && params.entities !== undefined
      ? { text: raw, entities: (object(params, "entities") as unknown as MessageEntity[]) ?? [] }
      : parseText(raw, mode);
  if (parsed.text.trim() === "") throw badRequest("message text is empty");
  if (parsed.text.length > MAX_TEXT) throw badRequest("message is too long");
  return { ...parsed, raw, mode };
}

function linkPreviewDisabled(params: Params): boolean {
  const options = object(params, "link_preview_options");
  if (options !== undefined) return options.is_disabled === true || options.is_disabled === "true";
  const legacy = params.disable_web_page_preview;
  return legacy === true || legacy === "true";
}

const getMe: Handler = ({ bot }) => ({
  ...bot.user,
  can_join_groups: true,
  can_read_all_group_messages: true,
  supports_inline_queries: false,
  can_connect_to_business: false,
  has_main_web_app: false,
});

const deleteWebhook: Handler = ({ bot, params }) => {
  const had = bot.webhookUrl !== "";
  bot.webhookUrl = "";
  const drop = params.drop_pending_updates;
  if (drop === true || drop === "true") bot.updates.length = 0;
  return new Described(true, had ? "Webhook was deleted" : "Webhook is already deleted");
};

const setWebhook: Handler = ({ bot, params }) => {
  bot.webhookUrl = string(params, "url") ?? "";
  return new Described(true, bot.webhookUrl === "" ? "Webhook was deleted" : "Webhook was set");
};

const getWebhookInfo: Handler = ({ bot }) => ({
  url: bot.webhookUrl,
  has_custom_certificate: false,
  pending_update_count: bot.updates.length,
});

const getUpdates: Handler = ({ bot, params, signal }) => {
  if (bot.webhookUrl !== "") {
    throw conflict(
      "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    );
  }
  const offset = integer(params, "offset") ?? 0;
  const limit = Math.min(100, Math.max(1, integer(params, "limit") ?? 100));
  const timeout = Math.max(0, integer(params, "timeout") ?? 0);
  const allowed = params.allowed_updates;
  if (allowed !== undefined) {
    bot.allowedUpdates = Array.isArray(allowed) ? allowed.map(String) : (JSON.parse(String(allowed)) as string[]);
  }
  // A positive offset confirms every update before it; a negative one keeps only the last -offset updates.
  if (offset > 0) {
    while ((bot.updates[0]?.update_id ?? offset) < offset) bot.updates.shift();
  } else if (offset < 0) {
    bot.updates.splice(0, Math.max(0, bot.updates.length + offset));
  }
  // A newer getUpdates ends the one being held, as on the platform.
  const previous = bot.poll;
  bot.poll = undefined;
  previous?.answer(conflict("terminated by other getUpdates request; make sure that only one bot instance is running"));
  if (bot.updates.length > 0 || timeout === 0) return bot.render(bot.updates.slice(0, limit));
  return new Promise<unknown[]>((resolve, reject) => {
    const poll = {
      answer: (updates: Update[] | Error) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        if (updates instanceof Error) reject(updates);
        else resolve(bot.render(updates.slice(0, limit)));
      },
    };
    const timer = setTimeout(() => {
      if (bot.poll === poll) bot.poll = undefined;
      poll.answer([]);
    }, timeout * 1000);
    const onAbort = () => {
      if (bot.poll === poll) bot.poll = undefined;
      poll.answer([]);
    };
    signal.addEventListener("abort", onAbort);
    bot.poll = poll;
  });
};

const getChat: Handler = (context) => {
  const { chat } = memberChat(context);
  return { ...chat, accent_color_id: 0, max_reaction_count: 11, accepted_gift_types: {} };
};

const sendMessage: Handler = (context) => {
  const { world, bot, params } = context;
  const chat = memberChat(context);
  const threadId = integer(params, "message_thread_id");
  if (threadId !== undefined && !chat.topics.has(threadId)) throw badRequest("message thread not found");
  const reply = object(params, "reply_parameters");
  const replyTo = reply !== undefined ? integer(reply, "message_id") : integer(params, "reply_to_message_id");
  const allowWithout = (reply ?? params).allow_sending_without_reply;
  let replyTarget: StoredMessage | undefined;
  if (replyTo !== undefined) {
    replyTarget = chat.messages.get(replyTo);
    if (replyTarget?.deleted) replyTarget = undefined;
    if (replyTarget === undefined && allowWithout !== true && allowWithout !== "true") {
      throw badRequest("message to be replied not found");
    }
  }
  const { text, entities, raw, mode } = formatted(params);
  const inTopic = threadId ?? (replyTarget?.is_topic_message ? replyTarget.message_thread_id : undefined);
  const message = world.post(chat, {
    from: bot.user,
    text,
    ...(entities.length > 0 ? { entities } : {}),
    ...(inTopic === undefined ? {} : { message_thread_id: inTopic, is_topic_message: true }),
    ...(replyTarget ? { reply_to: replyTarget.message_id } : inTopic !== undefined ? { reply_to: inTopic } : {}),
  });
  context.record({
    bot: bot.user.username ?? "",
    method: "sendMessage",
    chatId: chat.chat.id,
    messageId: message.message_id,
    text,
    entities,
    rawText: raw,
    parseMode: mode,
    ...(inTopic === undefined ? {} : { threadId: inTopic }),
    ...(replyTarget ? { replyTo: replyTarget.message_id } : {}),
    linkPreviewDisabled: linkPreviewDisabled(params),
  });
  return world.toJson(chat, message);
};

const editMessageText: Handler = (context) => {
  const { world, bot, params } = context;
  const chat = memberChat(context);
  const id = integer(params, "message_id", true);
  const message = chat.messages.get(id);
  if (message === undefined || message.deleted) throw badRequest("message to edit not found");
  if (message.from?.id !== bot.user.id) throw badRequest("message can't be edited");
  const { text, entities, raw, mode } = formatted(params);
  if (message.text === text && JSON.stringify(message.entities ?? []) === JSON.stringify(entities)) {
    throw badRequest(NOT_MODIFIED);
  }
  world.edit(chat, message, text, entities);
  context.record({
    bot: bot.user.username ?? "",
    method: "editMessageText",
    chatId: chat.chat.id,
    messageId: id,
    text,
    entities,
    rawText: raw,
    parseMode: mode,
    linkPreviewDisabled: linkPreviewDisabled(params),
  });
  return world.toJson(chat, message);
};

const deleteMessage: Handler = (context) => {
  const { world, bot, params } = context;
  const chat = memberChat(context);
  const id = integer(params, "message_id", true);
  const message = chat.messages.get(id);
  if (message === undefined || message.deleted) throw badRequest("message to delete not found");
  if (message.from?.id !== bot.user.id) throw badRequest("message can't be deleted");
  world.delete(message);
  context.record({
    bot: bot.user.username ?? "",
    method: "deleteMessage",
    chatId: chat.chat.id,
    messageId: id,
    text: message.text ?? "",
    entities: [],
    rawText: "",
    parseMode: "",
    linkPreviewDisabled: false,
  });
  return true;
};

/** getFile: the file_path to download a file by (a bot may fetch any file_id it was shown). */
const getFile: Handler = ({ world, params }) => {
  const id = string(params, "file_id");
  const file = id === undefined ? undefined : world.files.byId(id);
  if (file === undefined) throw badRequest("invalid file_id");
  return {
    file_id: file.file_id,
    file_unique_id: file.file_unique_id,
    file_size: file.data.length,
    file_path: file.file_path,
  };
};

/** sendPhoto / sendDocument with the file uploaded as multipart/form-data (the only way a bridge sends a new one). */
const sendMedia =
  (method: "sendPhoto" | "sendDocument", field: "photo" | "document"): Handler =>
  (context) => {
    const { world, bot, params } = context;
    const chat = memberChat(context);
    const upload = params[field];
    if (!isUploadedFile(upload)) throw badRequest(`there is no ${field} in the request`);
    if (upload.data.length === 0) throw badRequest("file must be non-empty");
    const refused = context.uploads.check(method, upload);
    if (refused !== undefined) throw refused;
    const stored = world.files.add(upload.name, upload.data, field);
    const caption = string(params, "caption");
    const threadId = integer(params, "message_thread_id");
    const message = world.post(chat, {
      from: bot.user,
      ...(caption === undefined || caption === "" ? {} : { caption }),
      media: mediaFields(stored, field),
      file: { id: stored.file_id, name: upload.name, size: upload.data.length },
      ...(threadId === undefined ? {} : { message_thread_id: threadId, is_topic_message: true }),
    });
    context.record({
      bot: bot.user.username ?? "",
      method,
      chatId: chat.chat.id,
      messageId: message.message_id,
      text: caption ?? "",
      entities: [],
      rawText: caption ?? "",
      parseMode: string(params, "parse_mode") ?? "",
      linkPreviewDisabled: false,
      file: { name: upload.name, data: upload.data },
    });
    return world.toJson(chat, message);
  };

/** By lower-case name: the platform matches method names case-insensitively. */
export const METHODS: ReadonlyMap<string, Handler> = new Map(
  Object.entries({
    getMe,
    deleteWebhook,
    setWebhook,
    getWebhookInfo,
    getUpdates,
    getChat,
    sendMessage,
    editMessageText,
    deleteMessage,
    getFile,
    sendPhoto: sendMedia("sendPhoto", "photo"),
    sendDocument: sendMedia("sendDocument", "document"),
  }).map(([name, handler]) => [name.toLowerCase(), handler]),
);

export { BotApiError };
