// The Web API methods the bridge uses (api.slack.com/methods), answering as Slack does: HTTP 200 with `ok: true` and
// the method's fields, or HTTP 200 with `ok: false` and an error code (invalid_auth, not_authed,
// not_allowed_token_type, channel_not_found, not_in_channel, no_text, msg_too_long, message_not_found,
// cant_update_message, cant_delete_message, user_not_found, bot_not_found, unknown_method), and the two file upload
// methods (files.getUploadURLExternal, files.completeUploadExternal: see files.ts). The token comes from
// `Authorization: Bearer` or a `token` field.
import type { SlackFiles } from "./files.ts";
import type { MessageRecord, SlackApp, SlackWorld } from "./world.ts";
import { publicMessage } from "./world.ts";

/** Slack truncates longer texts; chat.postMessage refuses them with msg_too_long. */
export const MAX_TEXT = 40_000;

export interface MethodCall {
  method: string;
  token: string | undefined;
  params: Record<string, unknown>;
}

export type MethodAnswer = Record<string, unknown> & { ok: boolean };

/** What the bot did through the API, as the test sees it. */
export interface SlackBotAction {
  kind: "post" | "update" | "delete";
  /** The channel's name. */
  channel: string;
  message: MessageRecord;
}

export interface WebApiContext {
  world: SlackWorld;
  files: SlackFiles;
  /** The upload_url base files.getUploadURLExternal hands out. */
  uploadBase(): string;
  issueTicket(app: SlackApp): string;
  linkUrl(ticket: string): string;
  /** The bot posted, edited or deleted: the workspace's members (and apps) see it. */
  announce(action: SlackBotAction, app: SlackApp, previous?: MessageRecord): void;
}

type Method = (call: MethodCall, app: SlackApp, context: WebApiContext) => MethodAnswer;

const fail = (error: string, extra: Record<string, unknown> = {}): MethodAnswer => ({ ok: false, error, ...extra });
const text = (value: unknown) => (typeof value === "string" ? value : value === undefined ? "" : String(value));

function channelFor(call: MethodCall, app: SlackApp, context: WebApiContext, mustBeMember: boolean) {
  const channel = context.world.channel(text(call.params.channel));
  if (channel === undefined) return fail("channel_not_found");
  if (mustBeMember && !channel.members.has(app.user.id)) return fail("not_in_channel");
  return channel;
}

const BOT_METHODS: Record<string, Method> = {
  "auth.test": (_call, app, { world }) => ({
    ok: true,
    url: `https://${world.teamDomain}.slack.com/`,
    team: "Switchboard Simulator",
    user: app.user.name,
    team_id: world.teamId,
    user_id: app.user.id,
    bot_id: app.botId,
    is_enterprise_install: false,
  }),

  "conversations.list": (call, app, { world }) => {
    const limit = Math.min(Math.max(Number(call.params.limit ?? 100) || 100, 1), 1000);
    const start = call.params.cursor ? Number(Buffer.from(text(call.params.cursor), "base64").toString().slice(5)) : 0;
    const types = text(call.params.types || "public_channel").split(",");
    const all = [...world.channels.values()].filter((channel) =>
      channel.isPrivate
        ? types.includes("private_channel") && channel.members.has(app.user.id)
        : types.includes("public_channel"),
    );
    const page = all.slice(start, start + limit);
    const next = start + limit < all.length ? Buffer.from(`next:${start + limit}`).toString("base64") : "";
    return {
      ok: true,
      channels: page.map((channel) => world.conversationObject(channel, app.user.id)),
      response_metadata: { next_cursor: next },
    };
  },

  "conversations.info": (call, app, context) => {
    const channel = channelFor(call, app, context, false);
    if ("ok" in channel) return channel;
    return { ok: true, channel: context.world.conversationObject(channel, app.user.id) };
  },

  "users.info": (call, _app, { world }) => {
    const user = world.users.get(text(call.params.user));
    return user ? { ok: true, user: structuredClone(user) } : fail("user_not_found");
  },

  "bots.info": (call, _app, { world }) => {
    const owner = world.apps.find((candidate) => candidate.botId === text(call.params.bot));
    if (!owner) return fail("bot_not_found");
    return {
      ok: true,
      bot: {
        id: owner.botId,
        deleted: false,
        name: owner.user.name,
        updated: 0,
        app_id: owner.appId,
        user_id: owner.user.id,
        icons: { image_36: "", image_48: "", image_72: owner.user.profile.image_72 },
      },
    };
  },

  "chat.postMessage": (call, app, context) => {
    const channel = channelFor(call, app, context, true);
    if ("ok" in channel) return channel;
    const body = text(call.params.text);
    if (body.trim() === "" && !call.params.blocks && !call.params.attachments) return fail("no_text");
    if (body.length > MAX_TEXT) return fail("msg_too_long");
    const threadTs = text(call.params.thread_ts);
    const parent = threadTs === "" ? undefined : context.world.message(channel, threadTs);
    const username = text(call.params.username);
    const iconUrl = text(call.params.icon_url);
    const record: MessageRecord = {
      type: "message",
      ts: context.world.nextTs(),
      text: body,
      user: app.user.id,
      bot_id: app.botId,
      app_id: app.appId,
      // A customised name or icon (chat:write.customize) makes it a bot_message, as on Slack.
      ...(username || iconUrl ? { subtype: "bot_message", username: username || app.user.name } : {}),
      ...(iconUrl ? { icons: { image_48: iconUrl } } : {}),
      // A thread_ts naming no message starts no thread: Slack posts it in the channel.
      ...(parent ? { thread_ts: parent.thread_ts ?? parent.ts } : {}),
    };
    if (parent) parent.reply_count = (parent.reply_count ?? 0) + 1;
    channel.messages.push(record);
    context.announce({ kind: "post", channel: channel.name, message: structuredClone(record) }, app);
    return { ok: true, channel: channel.id, ts: record.ts, message: publicMessage(record) };
  },

  "files.getUploadURLExternal": (call, app, context) => {
    const filename = text(call.params.filename);
    const length = Number(call.params.length);
    if (filename === "" || !Number.isSafeInteger(length) || length <= 0) return fail("invalid_arguments");
    const { id, uploadPath } = context.files.reserve(filename, length, app.botToken);
    return { ok: true, upload_url: `${context.uploadBase()}${uploadPath}`, file_id: id };
  },

  "files.completeUploadExternal": (call, app, context) => {
    let entries: unknown;
    try {
      entries = JSON.parse(text(call.params.files));
    } catch {
      return fail("invalid_arguments");
    }
    if (!Array.isArray(entries) || entries.length === 0) return fail("invalid_arguments");
    const channelId = text(call.params.channel_id);
    const channel =
      channelId === "" ? undefined : channelFor({ ...call, params: { channel: channelId } }, app, context, true);
    if (channel !== undefined && "ok" in channel) return channel;
    const files = [];
    for (const entry of entries as { id?: unknown; title?: unknown }[]) {
      const done = context.files.complete(
        text(entry?.id),
        typeof entry?.title === "string" ? entry.title : undefined,
        app.botToken,
      );
      if (typeof done === "string") return fail(done);
      files.push(done);
    }
    if (channel === undefined) return { ok: true, files };
    // Shared in the channel: one message from the bot user with the files and the initial comment.
    const threadTs = text(call.params.thread_ts);
    const parent = threadTs === "" ? undefined : context.world.message(channel, threadTs);
    const record: MessageRecord = {
      type: "message",
      subtype: "file_share",
      ts: context.world.nextTs(),
      text: text(call.params.initial_comment),
      user: app.user.id,
      bot_id: app.botId,
      files,
      upload: true,
      ...(parent ? { thread_ts: parent.thread_ts ?? parent.ts } : {}),
    };
    channel.messages.push(record);
    context.announce({ kind: "post", channel: channel.name, message: structuredClone(record) }, app);
    const shares = { [channel.isPrivate ? "private" : "public"]: { [channel.id]: [{ ts: record.ts }] } };
    return { ok: true, files: files.map((file) => ({ ...file, shares })) };
  },

  "chat.update": (call, app, context) => {
    const channel = channelFor(call, app, context, false);
    if ("ok" in channel) return channel;
    const record = context.world.message(channel, text(call.params.ts));
    if (!record) return fail("message_not_found");
    if (record.bot_id !== app.botId) return fail("cant_update_message");
    const body = text(call.params.text);
    if (body.length > MAX_TEXT) return fail("msg_too_long");
    const previous = structuredClone(record);
    record.text = body;
    record.edited = { user: app.user.id, ts: context.world.nextTs() };
    context.announce({ kind: "update", channel: channel.name, message: structuredClone(record) }, app, previous);
    return { ok: true, channel: channel.id, ts: record.ts, text: body, message: publicMessage(record) };
  },

  "chat.delete": (call, app, context) => {
    const channel = channelFor(call, app, context, false);
    if ("ok" in channel) return channel;
    const record = context.world.message(channel, text(call.params.ts));
    if (!record) return fail("message_not_found");
    if (record.bot_id !== app.botId) return fail("cant_delete_message");
    record.deleted = true;
    context.announce({ kind: "delete", channel: channel.name, message: structuredClone(record) }, app);
    return { ok: true, channel: channel.id, ts: record.ts };
  },
};

/** Answers one Web API call. */
export function callMethod(call: MethodCall, context: WebApiContext): MethodAnswer {
  const isAppMethod = call.method === "apps.connections.open";
  if (!isAppMethod && !Object.hasOwn(BOT_METHODS, call.method)) return fail("unknown_method");
  if (call.token === undefined || call.token === "") return fail("not_authed");
  const { world } = context;
  const byBotToken = world.apps.find((app) => app.botToken === call.token);
  const byAppToken = world.apps.find((app) => app.appToken === call.token);
  if (!byBotToken && !byAppToken) return fail("invalid_auth");
  if (isAppMethod) {
    if (!byAppToken) return fail("not_allowed_token_type");
    return { ok: true, url: context.linkUrl(context.issueTicket(byAppToken)) };
  }
  if (!byBotToken) return fail("not_allowed_token_type");
  return (BOT_METHODS[call.method] as Method)(call, byBotToken, context);
}
