// The discord account's connection, on discord.js: one Client per connect attempt (REST at ApiURL; the gateway URL
// comes from GET /gateway/bot), the Server found among the bot's guilds, channels resolved at join (name,
// "category/name" or "ID:<id>"), what the channels say handed to the core (inbound.ts), what the core sends written
// as bot messages or through per-channel webhooks (outbound.ts, webhooks.ts). discord.js's own gateway reconnect is
// cut short: a lost gateway connection is `disconnected`, and the core reconnects with backoff and holds messages.
// The REST client rejects on rate limits instead of waiting, so a 429 reaches the core's queue as RetryAfter.

import type { Readable } from "node:stream";
import {
  type Channel,
  ChannelType,
  Client,
  type Message as DiscordMessage,
  Events,
  GatewayIntentBits,
  type Guild,
  type GuildMember,
  type PartialGuildMember,
  type PartialMessage,
  Partials,
  type TextChannel,
  type Typing,
  type WebhookClient,
} from "discord.js";
import type { Logger } from "pino";
import type { AccountConfig } from "../../config/types.ts";
import type { Delivery, SendResult } from "../../core/account.ts";
import {
  AccountFailure,
  type Connection,
  type ConnectionContext,
  type JoinRequest,
  PermanentSendError,
} from "../../core/connection.ts";
import type { FileRequest } from "../../core/files/download.ts";
import type { FileInfo } from "../../core/files/file-info.ts";
import { Events as BridgeEvents, emptyMessage, PARENT_NOT_FOUND } from "../../message.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { RefusedUploads, refusedFileLine } from "../upload-fallback.ts";
import { isUnknownMessage, loginError, sendError } from "./errors.ts";
import { bridgedMessage, deleteMessage, inboundText, memberMessages, type NameLookup } from "./inbound.ts";
import type { DISCORD_KEYS } from "./keys.ts";
import { allowedMentions, discordText, replaceMentions, splitMessage, WEBHOOK_USERNAME_MAX } from "./outbound.ts";
import { guardPackets } from "./packet-guard.ts";
import { makeRequest } from "./rest-request.ts";
import { stopShardReconnects } from "./shard-reconnect.ts";
import { uploadRefusal } from "./upload-refusal.ts";
import { ChannelWebhooks } from "./webhooks.ts";

type Settings = AccountConfig<typeof DISCORD_KEYS>["settings"];

/** Close codes after which reconnecting cannot help (discord.js stops too). */
const FATAL_CLOSE: Record<number, string> = {
  4004: "TokenInvalid",
  4013: "DisallowedIntents",
  4014: "DisallowedIntents",
};
/** Ids of messages sent through a webhook, remembered so deletes and edits go through it too (bounded). */
const WEBHOOK_IDS_KEPT = 5000;

export class DiscordConnection implements Connection {
  readonly #settings: Settings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  #client: Client | undefined;
  #guild: Guild | undefined;
  #webhooks: ChannelWebhooks | undefined;
  /** Configured channel name -> channel id, and back. */
  readonly #ids = new Map<string, string>();
  readonly #names = new Map<string, string>();
  readonly #viaWebhook = new Set<string>();
  /** Given with every post and edit: webhooks do not take the bot client's default. */
  readonly #mentions: ReturnType<typeof allowedMentions>;
  /** Parts of a split message already sent, so a send retried after a 429 does not repeat them. */
  readonly #progress = new WeakMap<Delivery, string[]>();
  /** Deliveries whose files Discord refused: the link lines sent instead (the message is then posted without files). */
  readonly #refusedLinks = new WeakMap<Delivery, string[]>();
  readonly #refusedUploads: RefusedUploads;
  readonly #malformed: MalformedEvents;

  constructor(config: AccountConfig<typeof DISCORD_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#mentions = allowedMentions(config.settings.AllowMention);
    this.#context = context;
    this.#logger = context.logger;
    this.#malformed = new MalformedEvents(context.logger);
    this.#refusedUploads = new RefusedUploads(context.logger);
  }

  async connect(): Promise<void> {
    const settings = this.#settings;
    const intents = [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.GuildMembers,
    ];
    if (settings.ShowUserTyping) intents.push(GatewayIntentBits.GuildMessageTyping);
    const client = new Client({
      intents,
      // Edits and deletes of messages sent before the bot connected arrive as partial messages.
      // A member who leaves and was never cached arrives as a partial member (with its user).
      partials: [Partials.Message, Partials.GuildMember],
      rest: { api: settings.ApiURL.replace(/\/+$/, ""), rejectOnRateLimit: () => true, makeRequest },
      allowedMentions: this.#mentions,
    });
    this.#client = client;
    guardPackets(client, (packet, reason) => this.#malformed.skip("a Discord gateway event", packet, reason));
    client.on(Events.Error, (error) => this.#logger.warn({ err: error }, "discord.js error"));
    const closed = new Promise<never>((_, reject) => {
      client.on(Events.ShardDisconnect, (event) => {
        const code = FATAL_CLOSE[event.code];
        reject(loginError(Object.assign(new Error(`gateway closed (${event.code})`), { code })));
      });
    });
    closed.catch(() => {});
    const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
    try {
      await Promise.race([client.login(stripBotPrefix(settings.Token)).then(() => ready), closed]);
    } catch (error) {
      throw loginError(error);
    }
    if (this.#client !== client) throw new Error("disconnected while connecting");
    this.#guild = findGuild(client, settings.Server);
    this.#webhooks = new ChannelWebhooks(settings.ApiURL.replace(/\/+$/, ""), this.#logger);
    this.#listen(client);
  }

  async join(request: JoinRequest): Promise<void> {
    const guild = this.#guild;
    const client = this.#client;
    if (guild === undefined || client === undefined) throw new Error("not connected");
    const channel = findChannel(guild, request.channel);
    if (channel === undefined) {
      const names = guild.channels.cache.filter((c) => c.type === ChannelType.GuildText).map((c) => c.name);
      this.#logger.warn(
        { channel: request.channel },
        `no text channel ${request.channel} on ${guild.name}; channels: ${names.join(", ")} (or "ID:<id>")`,
      );
      return;
    }
    this.#ids.set(request.channel, channel.id);
    this.#names.set(channel.id, request.channel);
    const webhookURL = optionText(request.options, "WebhookURL");
    await this.#webhooks?.setUp(channel, webhookURL, this.#settings.AutoWebhooks, client.application?.id ?? "");
  }

  send(delivery: Delivery): SendResult {
    return this.#send(delivery).catch((error: unknown) => {
      throw sendError(error, (failure) => this.#context.failed(failure));
    });
  }

  async #send(delivery: Delivery): Promise<string> {
    const channel = this.#channel(delivery.channel);
    const message = delivery.message;
    if (message.event === BridgeEvents.userTyping) {
      if (this.#settings.ShowUserTyping) await channel.sendTyping();
      return "";
    }
    if (message.event === BridgeEvents.msgDelete) {
      for (const id of splitIds(message.id)) await this.#delete(channel, id);
      return "";
    }
    if (message.event === BridgeEvents.fileDelete) return "";
    const refusedLinks = this.#refusedLinks.get(delivery);
    const mentioned = replaceMentions(discordText(delivery), (name) => this.#memberId(name));
    const text = [mentioned, ...(refusedLinks ?? [])].filter((line) => line !== "").join("\n");
    const uploads = refusedLinks === undefined ? (delivery.uploads ?? []) : [];
    if (text.trim() === "" && uploads.length === 0) return "";
    const parent = message.parent_id === PARENT_NOT_FOUND ? "" : (splitIds(message.parent_id)[0] ?? "");
    // Webhooks cannot reply: a reply goes out as the bot, with the nick in the text.
    const webhook = parent === "" ? this.#webhooks?.get(channel.id) : undefined;
    const username = message.username;
    const prefix = webhook ? "" : username;
    if (message.id !== "") return this.#edit(channel, delivery, text, prefix);

    const split = splitMessage(text, prefix, this.#settings.MessageSplitMaxCount, this.#settings.MessageClipped);
    // A file without text still shows who sent it (the nick as the text of a bot message).
    const parts = split.length > 0 ? split : [prefix.trim()];
    const sent = this.#progress.get(delivery) ?? [];
    this.#progress.set(delivery, sent);
    for (let index = sent.length; index < parts.length; index++) {
      if (index > 0) await this.#context.pace();
      const content = parts[index] as string;
      // The files go with the first part, as multipart files[n] (read from disk at this moment).
      const files = index === 0 ? uploads.map((file) => ({ attachment: file.stream(), name: file.name })) : [];
      try {
        sent.push(await this.#post(channel, webhook, parent, delivery, { content, files }));
      } catch (error) {
        const reason = files.length > 0 ? uploadRefusal(error) : undefined;
        if (reason === undefined) throw error;
        // Text and files are one request: the message goes again, at once and in its place, with the links.
        this.#refusedUploads.record(uploads, reason);
        this.#refusedLinks.set(delivery, uploads.map(refusedFileLine));
        this.#progress.delete(delivery);
        return this.#send(delivery);
      }
    }
    this.#progress.delete(delivery);
    // A message split into several is one bridged message: its ids joined by ";" (as Matterbridge).
    return sent.join(";");
  }

  /** One message: through the channel's webhook under the sender's name, else as the bot (a reply when `parent`). */
  async #post(
    channel: TextChannel,
    webhook: WebhookClient | undefined,
    parent: string,
    delivery: Delivery,
    body: { content: string; files: { attachment: Readable; name: string }[] },
  ): Promise<string> {
    const message = delivery.message;
    if (webhook) {
      const result = await webhook.send({
        ...body,
        allowedMentions: this.#mentions,
        username: webhookUsername(message.username),
        avatarURL: message.avatar || this.#localAvatar(delivery) || undefined,
      });
      this.#rememberWebhookMessage(result.id);
      return result.id;
    }
    const result = await channel.send({
      ...body,
      allowedMentions: this.#mentions,
      ...(parent !== "" ? { reply: { messageReference: parent, failIfNotExists: false } } : {}),
    });
    return result.id;
  }

  /** Discord's CDN URLs need no credentials. */
  fileRequest(file: FileInfo): FileRequest | undefined {
    return file.URL === "" ? undefined : { url: file.URL };
  }

  /** Edits each part of an earlier message; parts the new text no longer needs are deleted. */
  async #edit(channel: TextChannel, delivery: Delivery, text: string, prefix: string): Promise<string> {
    const ids = splitIds(delivery.message.id);
    const parts = splitMessage(text, prefix, ids.length, this.#settings.MessageClipped);
    for (const [index, id] of ids.entries()) {
      const content = parts[index];
      if (content === undefined) {
        await this.#delete(channel, id);
        continue;
      }
      const webhook = this.#viaWebhook.has(id) ? this.#webhooks?.get(channel.id) : undefined;
      if (webhook) await webhook.editMessage(id, { content, allowedMentions: this.#mentions });
      else await channel.messages.edit(id, { content, allowedMentions: this.#mentions });
    }
    return delivery.message.id;
  }

  async #delete(channel: TextChannel, id: string): Promise<void> {
    const webhook = this.#viaWebhook.has(id) ? this.#webhooks?.get(channel.id) : undefined;
    try {
      if (webhook) await webhook.deleteMessage(id);
      else await channel.messages.delete(id);
    } catch (error) {
      if (!isUnknownMessage(error)) throw error; // already gone: the delete did what it should
    }
  }

  #channel(name: string): TextChannel {
    const client = this.#client;
    if (client === undefined || !client.isReady()) throw new Error("not connected");
    const id = this.#ids.get(name);
    const channel = id === undefined ? undefined : client.channels.cache.get(id);
    if (channel === undefined || !isTextChannel(channel)) {
      throw new PermanentSendError(`no Discord channel ${name} to send to (see the join warning)`);
    }
    return channel;
  }

  #memberId(name: string): string | undefined {
    const members = this.#guild?.members.cache;
    const found = members?.find((m) => m.nickname === name || m.user.globalName === name || m.user.username === name);
    return found?.id;
  }

  /** UseLocalAvatar: the avatar of the Discord member named like the sender, for messages from those sources. */
  #localAvatar(delivery: Delivery): string {
    const message = delivery.message;
    const sources = this.#settings.UseLocalAvatar;
    if (!sources.includes(message.protocol) && !sources.includes(message.account)) return "";
    const id = this.#memberId(message.username.trim());
    const member = id === undefined ? undefined : this.#guild?.members.cache.get(id);
    return member?.displayAvatarURL() ?? "";
  }

  #rememberWebhookMessage(id: string): void {
    this.#viaWebhook.add(id);
    if (this.#viaWebhook.size > WEBHOOK_IDS_KEPT) {
      const oldest = this.#viaWebhook.values().next().value;
      if (oldest !== undefined) this.#viaWebhook.delete(oldest);
    }
  }

  async disconnect(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#guild = undefined;
    this.#ids.clear();
    this.#names.clear();
    this.#webhooks?.destroy();
    this.#webhooks = undefined;
    if (client === undefined) return;
    client.removeAllListeners();
    client.on(Events.Error, () => {});
    stopShardReconnects(client);
    await client.destroy();
  }

  #listen(client: Client): void {
    const lost = (why: string) => () => {
      if (this.#client === client) this.#context.disconnected(new Error(why));
    };
    client.on(Events.ShardReconnecting, lost("the gateway connection to Discord was lost"));
    client.on(Events.ShardDisconnect, lost("Discord closed the gateway connection"));
    client.on(Events.Invalidated, lost("Discord invalidated the session"));
    client.on(Events.MessageCreate, (message) => this.#relay(message, ""));
    client.on(Events.MessageUpdate, (before, after) => {
      if (this.#settings.EditDisable) return;
      // Discord also sends updates when it adds link previews: only a changed text is an edit.
      if (after.editedTimestamp === null || (!before.partial && before.content === after.content)) return;
      this.#relay(after, this.#settings.EditSuffix);
    });
    client.on(Events.MessageDelete, (message) => {
      const channel = this.#ours(message);
      if (channel !== undefined) this.#context.receive(deleteMessage(message.id, channel));
    });
    client.on(Events.MessageBulkDelete, (messages) => {
      for (const message of messages.values()) {
        const channel = this.#ours(message);
        if (channel !== undefined) this.#context.receive(deleteMessage(message.id, channel));
      }
    });
    const onMember = (joined: boolean) => (member: GuildMember | PartialGuildMember) => {
      if (this.#settings.NoSendJoinPart || member.guild.id !== this.#guild?.id) return;
      if (member.user.id === client.user?.id) return;
      const name = member.nickname || member.user.username;
      for (const message of memberMessages(name, joined, this.#context.memberships)) this.#context.receive(message);
    };
    client.on(Events.GuildMemberAdd, onMember(true));
    client.on(Events.GuildMemberRemove, onMember(false));
    client.on(Events.TypingStart, (typing: Typing) => {
      if (!this.#settings.ShowUserTyping || typing.user.id === client.user?.id) return;
      const channel = this.#names.get(typing.channel.id);
      if (channel !== undefined) {
        this.#context.receive(emptyMessage({ channel, event: BridgeEvents.userTyping, userid: typing.user.id }));
      }
    });
  }

  /** The configured channel name of a message in one of our channels of our guild, else undefined. */
  #ours(message: DiscordMessage | PartialMessage): string | undefined {
    if (message.guildId !== this.#guild?.id) return undefined;
    return this.#names.get(message.channelId);
  }

  #relay(message: DiscordMessage | PartialMessage, suffix: string): void {
    const channel = this.#ours(message);
    const client = this.#client;
    if (channel === undefined || client === undefined || message.author === null) return;
    // Never relay our own messages, nor those of our webhooks.
    if (message.author.id === client.user?.id || this.#webhooks?.isOurs(message.webhookId)) return;
    const text = inboundText(
      {
        content: message.content ?? "",
        embeds: message.embeds.map((e) => ({ title: e.title, description: e.description, url: e.url })),
      },
      this.#lookup(),
      this.#settings.ShowEmbeds,
    );
    const attachments = [...message.attachments.values()].map((a) => ({
      id: a.id,
      name: a.name,
      url: a.url,
      size: a.size,
    }));
    if (text === "" && attachments.length === 0) return;
    const reference = message.reference;
    this.#context.receive(
      bridgedMessage({
        id: message.id,
        channel,
        text: `${text}${suffix}`,
        username: this.#username(message),
        userid: message.author.id,
        avatar: message.author.displayAvatarURL({ extension: "png" }),
        // A reply to a message in another channel (a forward) has no parent here.
        parentId: reference?.messageId && reference.channelId === message.channelId ? reference.messageId : "",
        attachments,
      }),
    );
  }

  /** Server nickname, else display name, else user name (UseUserName: the user name, #discriminator optional). */
  #username(message: DiscordMessage | PartialMessage): string {
    const author = message.author;
    if (author === null) return "";
    if (message.webhookId !== null || this.#settings.UseUserName) {
      const tag = this.#settings.UseDiscriminator && author.discriminator !== "0" ? `#${author.discriminator}` : "";
      const name = author.username || author.id;
      return message.webhookId !== null ? name : `${name}${tag}`;
    }
    // A user without any name (a malformed or deleted account) is named by their id, never an empty nick.
    return message.member?.nickname || author.globalName || author.username || author.id;
  }

  #lookup(): NameLookup {
    const guild = this.#guild;
    return {
      user: (id) => {
        const member = guild?.members.cache.get(id);
        const user = member?.user ?? this.#client?.users.cache.get(id);
        return member?.nickname ?? user?.globalName ?? user?.username;
      },
      role: (id) => guild?.roles.cache.get(id)?.name,
      channel: (id) => guild?.channels.cache.get(id)?.name,
    };
  }
}

/** Matterbridge accepts "Bot <token>" too; discord.js adds the prefix itself. */
function stripBotPrefix(token: string): string {
  return token.trim().replace(/^Bot\s+/i, "");
}

/** A gateway option by name, matched case-insensitively like every other config key. */
function optionText(options: Readonly<Record<string, unknown>>, name: string): string {
  const found = Object.entries(options).find(([key]) => key.toLowerCase() === name.toLowerCase());
  return typeof found?.[1] === "string" ? found[1] : "";
}

function splitIds(id: string): string[] {
  return id === "" ? [] : id.split(";");
}

/**
 * A name Discord accepts for a webhook message: 1 to 80 characters, and never containing "discord" or "clyde"
 * (Discord refuses the whole message then, e.g. for RemoteNickFormat "{NICK} ({PROTOCOL})" from Discord): a
 * zero-width space is put inside those words.
 */
export function webhookUsername(username: string): string {
  const trimmed = username.trim().replace(/(disc)(ord)|(cl)(yde)/gi, (_m, a, b, c, d) => `${a ?? c}\u200b${b ?? d}`);
  return trimmed === "" ? "unknown" : trimmed.slice(0, WEBHOOK_USERNAME_MAX);
}

function isTextChannel(channel: Channel): channel is TextChannel {
  return channel.type === ChannelType.GuildText || channel.type === ChannelType.GuildAnnouncement;
}

/** Server by name, or by id ("ID:<id>" or the bare id); an unknown or ambiguous one is a start-up error. */
function findGuild(client: Client, server: string): Guild {
  const wanted = server.trim().replace(/^ID:/, "");
  const byId = client.guilds.cache.get(wanted);
  if (byId) return byId;
  const named = client.guilds.cache.filter((g) => g.name === wanted);
  if (named.size === 1) return named.first() as Guild;
  const known = client.guilds.cache.map((g) => `"${g.name}" (ID:${g.id})`).join(", ") || "none: invite the bot first";
  if (named.size > 1) {
    throw new AccountFailure(`several Discord servers are named "${wanted}"; set Server = "ID:<id>" (${known})`);
  }
  throw new AccountFailure(`the bot is not on a Discord server "${server}"; servers it is on: ${known}`);
}

/** A text channel by name, "category/name", or "ID:<id>". */
function findChannel(guild: Guild, name: string): TextChannel | undefined {
  const channels = guild.channels.cache;
  if (name.startsWith("ID:")) {
    const channel = channels.get(name.slice(3));
    return channel && isTextChannel(channel) ? channel : undefined;
  }
  const slash = name.indexOf("/");
  const found = channels.find((channel) => {
    if (!isTextChannel(channel)) return false;
    if (slash < 0) return channel.name === name;
    return channel.name === name.slice(slash + 1) && channel.parent?.name === name.slice(0, slash);
  });
  return found as TextChannel | undefined;
}
