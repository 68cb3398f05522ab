// The telegram account's connection, on grammy's Api client (no grammy Bot: its polling loop retries on its own,
// and here the core supervises). connect() checks the token (getMe) and removes a webhook (getUpdates refuses to run
// beside one), then one long-poll loop reads updates until it fails: that is a reported disconnect, and the core
// reconnects, continuing from the last update handled (Telegram keeps unread updates, so nothing said meanwhile is
// lost). join() checks that the bot is in each chat. send() is one sendMessage / editMessageText / deleteMessage.

import { thrownMessage } from "@switchboard/common";
import { Api, InputFile } from "grammy";
import type { Logger } from "pino";
import type { AccountConfig } from "../../config/types.ts";
import type { Delivery } from "../../core/account.ts";
import type { Connection, ConnectionContext, JoinRequest } from "../../core/connection.ts";
import type { FileRequest } from "../../core/files/download.ts";
import type { FileInfo } from "../../core/files/file-info.ts";
import type { LocalFile } from "../../core/files/local-file.ts";
import { Events } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { RefusedUploads, refusedFileMessage, uploadUnlessRefused } from "../upload-fallback.ts";
import { botApiFetch } from "./bot-api-fetch.ts";
import { isApiError, isMarkupRefused, isNetworkError, sendFailure, tokenFailure } from "./errors.ts";
import { type ChannelAddress, channelName, messageIdIn, messageKey, parseChannel } from "./ids.ts";
import { presenceMessages, textMessage } from "./inbound.ts";
import type { TELEGRAM_KEYS } from "./keys.ts";
import { type OutboundText, outboundText, type ParseMode } from "./outbound.ts";
import { readUpdate, type TgMessage, updateIdOf } from "./update-shape.ts";
import { mayRetryAsDocument, uploadRefusal } from "./upload-refusal.ts";

type Settings = AccountConfig<typeof TELEGRAM_KEYS>["settings"];

/** Seconds a getUpdates call is held by the server (Matterbridge: 60). */
const POLL_SECONDS = 50;
/** A call with no answer after this long counts as a dead link (a long poll plus slack). */
const CALL_TIMEOUT_SECONDS = POLL_SECONDS + 25;
const UPDATE_KINDS = ["message", "edited_message", "channel_post", "edited_channel_post"] as const;
/** A batch in which no update has a usable id cannot move the offset: ask again after this pause, not at once. */
const UNREADABLE_BATCH_PAUSE_MS = 1000;

export class TelegramConnection implements Connection {
  readonly #settings: Settings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  readonly #apiRoot: string;
  #api: Api | undefined;
  #poll: AbortController | undefined;
  /** The next update to ask for; kept across reconnects so none is handled twice or skipped. */
  #offset = 0;
  /** Bridged channels, as configured ("<chat>" or "<chat>/<topic>"). */
  readonly #channels = new Set<string>();
  readonly #malformed: MalformedEvents;
  /** Ids of the files of a delivery sent so far, so a retried send does not repeat them. */
  readonly #filesSent = new WeakMap<Delivery, string[]>();
  readonly #textSent = new WeakMap<Delivery, string>();
  readonly #refusedUploads: RefusedUploads;
  /** Pictures Telegram refused as photos: a retried send goes straight to sendDocument. */
  readonly #notPhotos = new WeakSet<LocalFile>();

  constructor(config: AccountConfig<typeof TELEGRAM_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#context = context;
    this.#logger = context.logger;
    this.#apiRoot = config.settings.ApiURL.replace(/\/+$/, "");
    this.#malformed = new MalformedEvents(context.logger);
    this.#refusedUploads = new RefusedUploads(context.logger);
    for (const membership of context.memberships) {
      const address = parseChannel(membership.channel);
      if (address !== undefined) this.#channels.add(channelName(address.chatId, address.topicId));
    }
  }

  async connect(): Promise<void> {
    const api = new Api(this.#settings.Token.trim(), {
      apiRoot: this.#apiRoot,
      timeoutSeconds: CALL_TIMEOUT_SECONDS,
      fetch: botApiFetch,
    });
    let me: Awaited<ReturnType<Api["getMe"]>>;
    try {
      me = await api.getMe();
      // getUpdates answers 409 while a webhook is set; pending updates are kept.
      await api.deleteWebhook();
    } catch (error) {
      throw tokenFailure(error) ?? describe(error, "connecting to the Bot API");
    }
    this.#logger.info({ bot: me.username }, `logged in to Telegram as @${me.username}`);
    this.#api = api;
    const poll = new AbortController();
    this.#poll = poll;
    void this.#pollLoop(api, poll.signal);
  }

  async join(request: JoinRequest): Promise<void> {
    const api = this.#liveApi();
    const address = parseChannel(request.channel);
    if (address === undefined) {
      this.#logger.warn(
        { channel: request.channel },
        `channel ${JSON.stringify(request.channel)} is not a Telegram chat id ("-1001234567890", or "-1001234567890/<topic id>" for a forum topic); send /chatId in the chat to learn its id`,
      );
      return;
    }
    try {
      await api.getChat(address.chatId);
    } catch (error) {
      if (isApiError(error) && error.error_code < 500) {
        // One chat the bot cannot see must not take the account down.
        this.#logger.warn(
          { channel: request.channel, reason: error.description },
          `cannot use chat ${request.channel}: ${error.description}; add the bot to the chat`,
        );
        return;
      }
      throw describe(error, `checking chat ${request.channel}`);
    }
  }

  async send(delivery: Delivery): Promise<string> {
    const api = this.#liveApi();
    const address = parseChannel(delivery.channel);
    if (address === undefined) return "";
    const message = delivery.message;
    const editing = message.id === "" ? undefined : messageIdIn(message.id, address.chatId);
    try {
      if (message.event === Events.msgDelete) {
        if (editing !== undefined) await this.#delete(api, address, editing);
        return "";
      }
      const text = outboundText(delivery, this.#settings.MessageFormat, this.#settings.MessageClipped);
      if (editing !== undefined) {
        await this.#withPlainFallback(text, (body, parseMode) =>
          api.editMessageText(address.chatId, editing, body, {
            ...(parseMode ? { parse_mode: parseMode } : {}),
            ...this.#linkPreview(),
          }),
        );
        return message.id;
      }
      const parent = message.parent_id === "" ? undefined : messageIdIn(message.parent_id, address.chatId);
      const uploads = delivery.uploads ?? [];
      // A file without text: the file alone, its caption naming the sender.
      if (uploads.length > 0 && message.text === "" && fileLines(message).length === 0) {
        return await this.#sendFiles(api, address, delivery, uploads);
      }
      // The text of a message with files is sent once, even when a file's upload is retried.
      const textSent = this.#textSent.get(delivery);
      if (textSent !== undefined) {
        await this.#sendFiles(api, address, delivery, uploads);
        return textSent;
      }
      const sent = await this.#withPlainFallback(text, (body, parseMode) =>
        api.sendMessage(address.chatId, body, {
          ...(parseMode ? { parse_mode: parseMode } : {}),
          ...(address.topicId === undefined ? {} : { message_thread_id: address.topicId }),
          // A parent deleted meanwhile must not cost the message.
          ...(parent === undefined
            ? {}
            : { reply_parameters: { message_id: parent, allow_sending_without_reply: true } }),
          ...this.#linkPreview(),
        }),
      );
      const id = messageKey(address.chatId, sent.message_id);
      if (uploads.length > 0) {
        this.#textSent.set(delivery, id);
        await this.#sendFiles(api, address, delivery, uploads);
      }
      return id;
    } catch (error) {
      throw this.#sendError(error);
    }
  }

  /**
   * The files as sendPhoto (pictures) or sendDocument, each captioned with the sender's nick; files already sent by
   * an earlier attempt of this delivery (a 429 in between) are not sent again. A file Telegram refuses goes as a
   * message with the nick and its link, in its place (nothing when it has no link). Resolves with the first one's id.
   */
  async #sendFiles(api: Api, address: ChannelAddress, delivery: Delivery, uploads: readonly LocalFile[]) {
    const sent = this.#filesSent.get(delivery) ?? [];
    this.#filesSent.set(delivery, sent);
    const thread = address.topicId === undefined ? {} : { message_thread_id: address.topicId };
    const caption = delivery.message.username.trim();
    for (const file of uploads.slice(sent.length)) {
      if (sent.length > 0) await this.#context.pace();
      const result = await uploadUnlessRefused(
        file,
        () => this.#upload(api, address.chatId, file, { caption, ...thread }),
        uploadRefusal,
        this.#refusedUploads,
      );
      if (result !== undefined) {
        sent.push(messageKey(address.chatId, result.message_id));
        continue;
      }
      const text = refusedFileMessage(file, caption);
      if (text === "") {
        sent.push("");
        continue;
      }
      const posted = await api.sendMessage(address.chatId, text, { ...thread, ...this.#linkPreview() });
      sent.push(messageKey(address.chatId, posted.message_id));
    }
    return sent.find((id) => id !== "") ?? "";
  }

  /** One file: a picture with sendPhoto, and as a document when Telegram refuses it as a photo (as its apps do). */
  async #upload(api: Api, chatId: number, file: LocalFile, options: { caption: string; message_thread_id?: number }) {
    if (file.isImage && !this.#notPhotos.has(file)) {
      try {
        return await api.sendPhoto(chatId, new InputFile(file.stream(), file.name), options);
      } catch (error) {
        if (!mayRetryAsDocument(error)) throw error;
        this.#notPhotos.add(file);
        this.#logger.debug(
          { file: file.name, reason: uploadRefusal(error) },
          "photo refused; sending it as a document",
        );
      }
    }
    return await api.sendDocument(chatId, new InputFile(file.stream(), file.name), options);
  }

  /** A file another Telegram user posted: getFile, then the Bot API's file URL (it holds the token: never logged). */
  async fileRequest(file: FileInfo): Promise<FileRequest | undefined> {
    if (file.NativeID === "" || this.#api === undefined) return undefined;
    const found = await this.#api.getFile(file.NativeID);
    if (found.file_path === undefined) return undefined;
    return { url: `${this.#apiRoot}/file/bot${this.#settings.Token.trim()}/${found.file_path}` };
  }

  async disconnect(): Promise<void> {
    this.#poll?.abort();
    this.#poll = undefined;
    this.#api = undefined;
  }

  async #delete(api: Api, address: ChannelAddress, messageId: number): Promise<void> {
    try {
      await api.deleteMessage(address.chatId, messageId);
    } catch (error) {
      // Already gone is what a delete wants.
      if (isApiError(error, 400) && /message to delete not found/i.test(error.description)) return;
      throw error;
    }
  }

  /** Sends with the formatted text; when Telegram refuses the markup, once more as plain text (never dropped). */
  async #withPlainFallback<T>(
    text: OutboundText,
    call: (body: string, parseMode?: ParseMode) => Promise<T>,
  ): Promise<T> {
    try {
      return await call(text.text, text.parseMode);
    } catch (error) {
      if (text.parseMode === undefined || !isMarkupRefused(error)) {
        // An edit that changes nothing is done.
        if (isApiError(error, 400) && /message is not modified/i.test(error.description)) return undefined as T;
        throw error;
      }
      this.#logger.warn(
        { reason: (error as Error).message },
        `Telegram refused the ${text.parseMode} markup; sending the message as plain text`,
      );
      return await call(text.plain);
    }
  }

  #linkPreview(): { link_preview_options?: { is_disabled: true } } {
    return this.#settings.DisableWebPagePreview ? { link_preview_options: { is_disabled: true } } : {};
  }

  #sendError(error: unknown): Error {
    if (isNetworkError(error)) {
      // The link is down: report it, so the queue holds this message for the reconnect instead of dropping it.
      this.#context.disconnected(error);
      return describe(error, "sending");
    }
    if (isApiError(error, 401)) {
      this.#context.failed(new Error(`Telegram no longer accepts the token (Token): ${error.description}`));
    }
    return sendFailure(error);
  }

  #liveApi(): Api {
    if (this.#api === undefined) throw new Error("not connected");
    return this.#api;
  }

  async #pollLoop(api: Api, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let updates: unknown;
      try {
        updates = await api.getUpdates(
          { offset: this.#offset, timeout: POLL_SECONDS, allowed_updates: [...UPDATE_KINDS] },
          // grammy types its signal with the abort-controller polyfill's class; a native one works the same.
          signal as Parameters<Api["getUpdates"]>[1],
        );
      } catch (error) {
        if (signal.aborted) return;
        if (isApiError(error, 401)) {
          this.#context.failed(new Error(`Telegram no longer accepts the token (Token): ${error.description}`));
        } else if (isApiError(error, 409)) {
          this.#context.disconnected(new Error(`${error.description} (another program is reading this bot's updates)`));
        } else {
          this.#context.disconnected(describe(error, "reading updates"));
        }
        return;
      }
      if (signal.aborted) return;
      const batch = Array.isArray(updates) ? (updates as unknown[]) : [updates];
      // The offset moves past the whole batch before anything in it is handled: an update that cannot be read is
      // skipped once, never asked for again (nor, after a restart, again and again).
      const before = this.#offset;
      for (const update of batch) {
        const id = updateIdOf(update);
        if (id !== undefined && id >= this.#offset) this.#offset = id + 1;
      }
      for (const update of batch) {
        if (signal.aborted) return;
        this.#malformed.guard("a Telegram update", update, () => this.#handle(api, update));
      }
      if (batch.length > 0 && this.#offset === before) await pause(UNREADABLE_BATCH_PAUSE_MS, signal);
    }
  }

  #handle(api: Api, raw: unknown): void {
    const update = readUpdate(raw);
    if (update.kind === "malformed") {
      this.#malformed.skip("a Telegram update", raw, update.reason);
      return;
    }
    if (update.kind !== "message") return;
    const { message, edited } = update;
    if (this.#answeredChatId(api, message)) return;
    const channel = this.#channelOf(message);
    if (channel === undefined) return;
    if (edited && this.#settings.EditDisable) return;
    for (const presence of presenceMessages(message, channel)) this.#context.receive(presence);
    const relayed = textMessage(message, channel, this.#settings, edited);
    if (relayed !== undefined) this.#context.receive(relayed);
    else if (this.#context.debug) this.#logger.debug({ channel }, "a Telegram message without text was not relayed");
  }

  /** The bridged channel a message belongs to: its topic's channel, else its chat's. */
  #channelOf(message: TgMessage): string | undefined {
    const chatId = message.chat.id;
    if (message.is_topic_message && message.message_thread_id !== undefined) {
      const topic = channelName(chatId, message.message_thread_id);
      if (this.#channels.has(topic)) return topic;
    }
    const chat = channelName(chatId);
    return this.#channels.has(chat) ? chat : undefined;
  }

  /** "/chatId" in any chat the bot is in: it answers the channel name to configure (as Matterbridge does). */
  #answeredChatId(api: Api, message: TgMessage): boolean {
    if (!/^\/chatid(@\w+)?$/i.test((message.text ?? "").trim())) return false;
    const topic = message.is_topic_message ? message.message_thread_id : undefined;
    const id = channelName(message.chat.id, topic);
    api
      .sendMessage(message.chat.id, `ID of this chat: ${id}`, topic === undefined ? {} : { message_thread_id: topic })
      .catch((error: unknown) => this.#logger.warn({ err: error }, "could not answer /chatId"));
    return true;
  }
}

/** Resolves after `ms`, or at once when the poll is aborted. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}

/** An error whose message says what was being done; the token never appears (grammy redacts it). */
function describe(error: unknown, doing: string): Error {
  const reason = thrownMessage(error);
  return new Error(`${doing}: ${reason}`);
}
