// The REST API under /api/v10 (also /api/v9 and unversioned /api): the routes a bridge bot uses, with Discord's
// status codes and JSON error bodies ({message, code}; "Invalid Form Body" with an errors tree), bot-token auth
// (`Authorization: Bot <token>`; webhook routes authenticate by the token in the path), and 429 answers with both
// the body's retry_after (seconds, float) and the Retry-After header (whole seconds).
import type { IncomingHttpHeaders } from "node:http";
import type { DiscordGateway } from "./gateway.ts";
import type {
  AttachmentObject,
  ChannelObject,
  DiscordWorld,
  MessageObject,
  UserObject,
  WebhookObject,
} from "./model.ts";
import { snowflake } from "./snowflake.ts";

export interface RestRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The files of a multipart body (`files[n]` parts, as discord.js sends them). */
  files: UploadedFile[];
}

/** A file sent with a message. */
export interface UploadedFile {
  name: string;
  data: Buffer;
  contentType: string;
}

export interface RestAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What the bot (or one of its webhooks) did, as the test sees it. */
export interface BotAction {
  kind: "create" | "edit" | "delete";
  via: "bot" | "webhook";
  /** The channel's name. */
  channel: string;
  /** The message after the action (for a delete: as it was). */
  message: MessageObject;
  /** The request's allowed_mentions, when it had one. */
  allowedMentions?: unknown;
}

export interface RestContext {
  world: DiscordWorld;
  gateway: DiscordGateway;
  token: () => string;
  gatewayUrl: () => string;
  recordBotAction: (action: BotAction) => void;
  /** Keeps a file on the CDN; returns its attachment object (with the URL it is served at). */
  storeAttachment: (channelId: string, file: UploadedFile) => AttachmentObject;
  /** Discord's refusal of a message carrying these files (too large, not allowed), else undefined. */
  refuseUpload: (files: readonly UploadedFile[]) => RestAnswer | undefined;
}

type Handler = (request: RestRequest, params: string[]) => RestAnswer | Promise<RestAnswer>;

interface Route {
  method: string;
  pattern: RegExp;
  /** "bot": needs the bot token; "none": no auth (gateway URL, webhook token in the path). */
  auth: "bot" | "none";
  handler: Handler;
}

export const MAX_CONTENT = 2000;

export const error = (status: number, message: string, code = 0): RestAnswer => ({
  status,
  body: { message, code },
});

/** Discord's 400 for a body that fails validation: code 50035 with the failing field's error. */
export function invalidFormBody(field: string, code: string, message: string): RestAnswer {
  return {
    status: 400,
    body: { message: "Invalid Form Body", code: 50035, errors: { [field]: { _errors: [{ code, message }] } } },
  };
}

export const UNAUTHORIZED = error(401, "401: Unauthorized");
export const NOT_FOUND = error(404, "404: Not Found");

export function restRoutes(context: RestContext): Route[] {
  const { world, gateway } = context;

  const channelOf = (id: string): ChannelObject | RestAnswer =>
    world.channels.get(id) ?? error(404, "Unknown Channel", 10003);
  const isAnswer = (value: unknown): value is RestAnswer =>
    typeof value === "object" && value !== null && "status" in value;

  /** Validates a create/edit body's content and reply reference; undefined when fine. */
  function checkContent(
    body: MessageBody,
    creating: boolean,
    channel: ChannelObject,
    files: UploadedFile[] = [],
  ): RestAnswer | undefined {
    const content = body.content;
    if (content !== undefined && content !== null && typeof content !== "string") {
      return invalidFormBody("content", "STRING_TYPE_CONVERT", "Could not interpret as string.");
    }
    if (typeof content === "string" && [...content].length > MAX_CONTENT) {
      return invalidFormBody("content", "BASE_TYPE_MAX_LENGTH", `Must be ${MAX_CONTENT} or fewer in length.`);
    }
    const empty = (typeof content !== "string" || content === "") && !(body.embeds?.length ?? 0) && files.length === 0;
    if (creating && empty) return error(400, "Cannot send an empty message", 50006);
    const reference = body.message_reference;
    if (creating && reference?.message_id !== undefined) {
      const parent = world.messages.get(reference.message_id);
      if ((parent === undefined || parent.channel_id !== channel.id) && reference.fail_if_not_exists !== false) {
        return invalidFormBody("message_reference", "REPLIES_UNKNOWN_MESSAGE", "Unknown message");
      }
      // A reply can only point into its own channel.
      if (parent === undefined || parent.channel_id !== channel.id) delete body.message_reference;
    }
    return undefined;
  }

  function create(
    channel: ChannelObject,
    author: UserObject,
    body: MessageBody,
    webhook?: WebhookObject,
    files: UploadedFile[] = [],
  ): MessageObject {
    const message = world.newMessage(channel, author, body.content ?? "", {
      embeds: body.embeds ?? [],
      attachments: files.map((file) => context.storeAttachment(channel.id, file)),
      ...(body.message_reference ? { message_reference: body.message_reference } : {}),
      ...(webhook ? { webhook_id: webhook.id } : {}),
    });
    message.mention_everyone &&= mayMentionEveryone(body.allowed_mentions);
    gateway.dispatch("MESSAGE_CREATE", { ...message, guild_id: world.guildId });
    context.recordBotAction({
      kind: "create",
      via: webhook ? "webhook" : "bot",
      channel: channel.name,
      message,
      ...(body.allowed_mentions !== undefined ? { allowedMentions: body.allowed_mentions } : {}),
    });
    return message;
  }

  function edit(message: MessageObject, body: MessageBody, via: "bot" | "webhook"): MessageObject {
    if (typeof body.content === "string") {
      message.content = body.content;
      message.mentions = world.mentionedUsers(body.content);
      message.mention_everyone = /@(everyone|here)\b/.test(body.content) && mayMentionEveryone(body.allowed_mentions);
    }
    if (body.embeds) message.embeds = body.embeds;
    message.edited_timestamp = new Date().toISOString();
    gateway.dispatch("MESSAGE_UPDATE", { ...message, guild_id: world.guildId });
    const channel = world.channels.get(message.channel_id);
    context.recordBotAction({
      kind: "edit",
      via,
      channel: channel?.name ?? "",
      message,
      ...(body.allowed_mentions !== undefined ? { allowedMentions: body.allowed_mentions } : {}),
    });
    return message;
  }

  function remove(message: MessageObject, via: "bot" | "webhook"): RestAnswer {
    world.messages.delete(message.id);
    gateway.dispatch("MESSAGE_DELETE", { id: message.id, channel_id: message.channel_id, guild_id: world.guildId });
    const channel = world.channels.get(message.channel_id);
    context.recordBotAction({ kind: "delete", via, channel: channel?.name ?? "", message });
    return { status: 204 };
  }

  /** The webhook named by id and token in a path, or Discord's answer for a wrong one. */
  function webhookOf(id: string, token: string): WebhookObject | RestAnswer {
    const webhook = world.webhooks.get(id);
    if (webhook === undefined) return error(404, "Unknown Webhook", 10015);
    if (webhook.token !== token) return error(401, "Invalid Webhook Token", 50027);
    return webhook;
  }

  const messageIn = (channelId: string, messageId: string): MessageObject | RestAnswer => {
    const message = world.messages.get(messageId);
    return message && message.channel_id === channelId ? message : error(404, "Unknown Message", 10008);
  };

  const id = "(\\d+)";
  const route = (method: string, path: string, auth: Route["auth"], handler: Handler): Route => ({
    method,
    pattern: new RegExp(`^${path}$`),
    auth,
    handler,
  });

  return [
    route("GET", "/gateway", "none", () => ({ status: 200, body: { url: context.gatewayUrl() } })),
    route("GET", "/gateway/bot", "bot", () => ({
      status: 200,
      body: {
        url: context.gatewayUrl(),
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
      },
    })),
    route("GET", "/users/@me", "bot", () => ({ status: 200, body: world.bot })),
    route("GET", "/users/@me/guilds", "bot", () => ({ status: 200, body: [world.partialGuild()] })),
    route("GET", `/users/${id}`, "bot", (_r, [userId]) => {
      const user = world.users.get(userId as string);
      return user ? { status: 200, body: user } : error(404, "Unknown User", 10013);
    }),
    route("GET", `/guilds/${id}/channels`, "bot", (_r, [guildId]) =>
      guildId === world.guildId
        ? { status: 200, body: [...world.channels.values()] }
        : error(404, "Unknown Guild", 10004),
    ),
    route("GET", `/guilds/${id}/members`, "bot", (request, [guildId]) => {
      if (guildId !== world.guildId) return error(404, "Unknown Guild", 10004);
      const limit = Number(request.query.get("limit") ?? 1);
      return { status: 200, body: [...world.members.values()].slice(0, Math.max(1, Math.min(limit, 1000))) };
    }),
    route("GET", `/guilds/${id}/members/${id}`, "bot", (_r, [, userId]) => {
      const member = world.members.get(userId as string);
      return member ? { status: 200, body: member } : error(404, "Unknown Member", 10007);
    }),
    route("GET", `/channels/${id}`, "bot", (_r, [channelId]) => {
      const channel = channelOf(channelId as string);
      return isAnswer(channel) ? channel : { status: 200, body: channel };
    }),
    route("POST", `/channels/${id}/messages`, "bot", (request, [channelId]) => {
      const channel = channelOf(channelId as string);
      if (isAnswer(channel)) return channel;
      const body = (request.body ?? {}) as MessageBody;
      const problem = checkContent(body, true, channel, request.files) ?? context.refuseUpload(request.files);
      if (problem) return problem;
      return { status: 200, body: create(channel, world.bot, body, undefined, request.files) };
    }),
    route("GET", `/channels/${id}/messages/${id}`, "bot", (_r, [channelId, messageId]) => {
      const message = messageIn(channelId as string, messageId as string);
      return isAnswer(message) ? message : { status: 200, body: message };
    }),
    route("PATCH", `/channels/${id}/messages/${id}`, "bot", (request, [channelId, messageId]) => {
      const channel = channelOf(channelId as string);
      if (isAnswer(channel)) return channel;
      const message = messageIn(channel.id, messageId as string);
      if (isAnswer(message)) return message;
      if (message.author.id !== world.bot.id || message.webhook_id !== undefined) {
        return error(403, "Cannot edit a message authored by another user", 50005);
      }
      const body = (request.body ?? {}) as MessageBody;
      const problem = checkContent(body, false, channel);
      return problem ?? { status: 200, body: edit(message, body, "bot") };
    }),
    route("DELETE", `/channels/${id}/messages/${id}`, "bot", (_r, [channelId, messageId]) => {
      const message = messageIn(channelId as string, messageId as string);
      return isAnswer(message) ? message : remove(message, "bot");
    }),
    route("POST", `/channels/${id}/typing`, "bot", (_r, [channelId]) => {
      const channel = channelOf(channelId as string);
      return isAnswer(channel) ? channel : { status: 204 };
    }),
    route("GET", `/channels/${id}/webhooks`, "bot", (_r, [channelId]) => {
      const channel = channelOf(channelId as string);
      if (isAnswer(channel)) return channel;
      return { status: 200, body: [...world.webhooks.values()].filter((w) => w.channel_id === channel.id) };
    }),
    route("GET", `/guilds/${id}/webhooks`, "bot", (_r, [guildId]) =>
      guildId === world.guildId
        ? { status: 200, body: [...world.webhooks.values()] }
        : error(404, "Unknown Guild", 10004),
    ),
    route("POST", `/channels/${id}/webhooks`, "bot", (request, [channelId]) => {
      const channel = channelOf(channelId as string);
      if (isAnswer(channel)) return channel;
      const name = (request.body as { name?: unknown } | undefined)?.name;
      if (typeof name !== "string" || name.length < 1 || name.length > 80) {
        return invalidFormBody("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 80 in length.");
      }
      if (/clyde|discord/i.test(name)) {
        return invalidFormBody("name", "USERNAME_INVALID_CONTAINS", 'Username cannot contain "discord"');
      }
      const webhook = addWebhook(world, channel, name, world.applicationId);
      return { status: 200, body: webhook };
    }),
    route("POST", `/webhooks/${id}/([^/]+)`, "none", (request, [webhookId, token]) => {
      const webhook = webhookOf(webhookId as string, token as string);
      if (isAnswer(webhook)) return webhook;
      const channel = world.channels.get(webhook.channel_id) as ChannelObject;
      const body = (request.body ?? {}) as MessageBody & { username?: unknown; avatar_url?: unknown };
      const problem = checkContent(body, true, channel, request.files) ?? context.refuseUpload(request.files);
      if (problem) return problem;
      if (typeof body.username === "string" && (body.username.length > 80 || /clyde|discord/i.test(body.username))) {
        return invalidFormBody("username", "USERNAME_INVALID", "Invalid username");
      }
      const author: UserObject = {
        id: webhook.id,
        username: typeof body.username === "string" && body.username !== "" ? body.username : webhook.name,
        discriminator: "0000",
        global_name: null,
        avatar: typeof body.avatar_url === "string" && body.avatar_url !== "" ? body.avatar_url : null,
        bot: true,
        public_flags: 0,
      };
      delete body.message_reference; // webhooks cannot reply
      const message = create(channel, author, body, webhook, request.files);
      return request.query.get("wait") === "true" ? { status: 200, body: message } : { status: 204 };
    }),
    route("PATCH", `/webhooks/${id}/([^/]+)/messages/${id}`, "none", (request, [webhookId, token, messageId]) => {
      const webhook = webhookOf(webhookId as string, token as string);
      if (isAnswer(webhook)) return webhook;
      const message = world.messages.get(messageId as string);
      if (message === undefined || message.webhook_id !== webhook.id) return error(404, "Unknown Message", 10008);
      const body = (request.body ?? {}) as MessageBody;
      const problem = checkContent(body, false, world.channels.get(message.channel_id) as ChannelObject);
      return problem ?? { status: 200, body: edit(message, body, "webhook") };
    }),
    route("DELETE", `/webhooks/${id}/([^/]+)/messages/${id}`, "none", (_r, [webhookId, token, messageId]) => {
      const webhook = webhookOf(webhookId as string, token as string);
      if (isAnswer(webhook)) return webhook;
      const message = world.messages.get(messageId as string);
      if (message === undefined || message.webhook_id !== webhook.id) return error(404, "Unknown Message", 10008);
      return remove(message, "webhook");
    }),
  ];
}

export function addWebhook(
  world: DiscordWorld,
  channel: ChannelObject,
  name: string,
  applicationId: string | null,
): WebhookObject {
  const webhook: WebhookObject = {
    id: snowflake(),
    type: 1,
    guild_id: world.guildId,
    channel_id: channel.id,
    name,
    avatar: null,
    token: `wh-${snowflake()}-${Math.random().toString(36).slice(2)}`,
    application_id: applicationId,
  };
  world.webhooks.set(webhook.id, webhook);
  return webhook;
}

/** Discord's rule: without allowed_mentions every mention in the content notifies; with it, @everyone and @here
 * notify only when its `parse` names "everyone". */
function mayMentionEveryone(allowed: unknown): boolean {
  if (allowed === undefined || allowed === null || typeof allowed !== "object") return true;
  const parse = (allowed as { parse?: unknown }).parse;
  return Array.isArray(parse) && parse.includes("everyone");
}

export interface MessageBody {
  content?: string | null;
  embeds?: MessageObject["embeds"];
  allowed_mentions?: unknown;
  message_reference?: { message_id?: string; channel_id?: string; fail_if_not_exists?: boolean };
}

export type { Route };
