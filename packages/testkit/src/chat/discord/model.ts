// The simulated Discord world: one bot application in one guild with text channels, human users and their members,
// messages and webhooks, kept as the API's own JSON objects (v10 field names), so REST answers and gateway events are
// these objects as they are.
import { snowflake } from "./snowflake.ts";

export interface UserObject {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: string | null;
  bot?: boolean;
  public_flags: number;
}

export interface MemberObject {
  user: UserObject;
  nick: string | null;
  roles: string[];
  joined_at: string;
  deaf: boolean;
  mute: boolean;
  flags: number;
  avatar: null;
}

export interface ChannelObject {
  id: string;
  type: number;
  guild_id: string;
  name: string;
  position: number;
  parent_id: string | null;
  permission_overwrites: unknown[];
  nsfw: boolean;
  topic: string | null;
  last_message_id: string | null;
  rate_limit_per_user: number;
}

export interface MessageReference {
  type?: number;
  message_id?: string;
  channel_id?: string;
  guild_id?: string;
  fail_if_not_exists?: boolean;
}

export interface AttachmentObject {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type?: string;
}

export interface EmbedObject {
  title?: string;
  description?: string;
  url?: string;
}

export interface MessageObject {
  id: string;
  type: number;
  channel_id: string;
  guild_id?: string;
  author: UserObject;
  member?: Omit<MemberObject, "user">;
  content: string;
  timestamp: string;
  edited_timestamp: string | null;
  tts: boolean;
  mention_everyone: boolean;
  mentions: UserObject[];
  mention_roles: string[];
  attachments: AttachmentObject[];
  embeds: EmbedObject[];
  pinned: boolean;
  flags: number;
  components: unknown[];
  webhook_id?: string;
  message_reference?: MessageReference;
  referenced_message?: MessageObject | null;
}

export interface WebhookObject {
  id: string;
  type: 1;
  guild_id: string;
  channel_id: string;
  name: string;
  avatar: string | null;
  token: string;
  application_id: string | null;
}

/** Channel types the fake knows (a category groups text channels: "category/channel" in Matterbridge configs). */
export const ChannelType = { text: 0, category: 4 } as const;
/** Message types: a plain message and a reply. */
export const MessageType = { default: 0, reply: 19 } as const;

export const CDN = "https://cdn.discordapp.com";

export class DiscordWorld {
  readonly guildId = snowflake();
  readonly applicationId = snowflake();
  readonly bot: UserObject;
  readonly channels = new Map<string, ChannelObject>();
  readonly users = new Map<string, UserObject>();
  readonly members = new Map<string, MemberObject>();
  readonly messages = new Map<string, MessageObject>();
  readonly webhooks = new Map<string, WebhookObject>();

  constructor(
    readonly guildName: string,
    botName: string,
  ) {
    this.bot = { ...this.#user(botName, null), bot: true };
    this.bot.id = this.applicationId; // a bot user's id is its application's id
    this.users.set(this.bot.id, this.bot);
    this.members.set(this.bot.id, this.#member(this.bot, null));
  }

  #user(username: string, globalName: string | null): UserObject {
    return {
      id: snowflake(),
      username,
      discriminator: "0",
      global_name: globalName,
      avatar: "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
      public_flags: 0,
    };
  }

  #member(user: UserObject, nick: string | null): MemberObject {
    return {
      user,
      nick,
      roles: [],
      joined_at: new Date().toISOString(),
      deaf: false,
      mute: false,
      flags: 0,
      avatar: null,
    };
  }

  addUser(username: string, options: { nick?: string; globalName?: string } = {}): MemberObject {
    const user = this.#user(username, options.globalName ?? null);
    const member = this.#member(user, options.nick ?? null);
    this.users.set(user.id, user);
    this.members.set(user.id, member);
    return member;
  }

  addChannel(name: string, options: { type?: number; parentId?: string } = {}): ChannelObject {
    const channel: ChannelObject = {
      id: snowflake(),
      type: options.type ?? ChannelType.text,
      guild_id: this.guildId,
      name,
      position: this.channels.size,
      parent_id: options.parentId ?? null,
      permission_overwrites: [],
      nsfw: false,
      topic: null,
      last_message_id: null,
      rate_limit_per_user: 0,
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** A channel by id, by name, or by "category/name". */
  channel(nameOrId: string): ChannelObject | undefined {
    const byId = this.channels.get(nameOrId);
    if (byId) return byId;
    const [first, second] = nameOrId.split("/");
    if (second === undefined) {
      return [...this.channels.values()].find((c) => c.name === nameOrId && c.type === ChannelType.text);
    }
    const category = [...this.channels.values()].find((c) => c.name === first && c.type === ChannelType.category);
    return [...this.channels.values()].find((c) => c.name === second && c.parent_id === category?.id);
  }

  /** A new message as the API returns it; the caller stores and dispatches it. */
  newMessage(
    channel: ChannelObject,
    author: UserObject,
    content: string,
    extra: Partial<MessageObject> = {},
  ): MessageObject {
    const member = this.members.get(author.id);
    const reference = extra.message_reference;
    const referenced = reference?.message_id ? this.messages.get(reference.message_id) : undefined;
    const message: MessageObject = {
      id: snowflake(),
      type: referenced ? MessageType.reply : MessageType.default,
      channel_id: channel.id,
      author,
      content,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: /@(everyone|here)\b/.test(content),
      mentions: this.mentionedUsers(content),
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      flags: 0,
      components: [],
      ...extra,
    };
    if (member && !author.bot) {
      const { user: _user, ...partial } = member;
      message.member = partial;
    }
    if (referenced) {
      message.message_reference = {
        type: 0,
        message_id: referenced.id,
        channel_id: referenced.channel_id,
        guild_id: this.guildId,
      };
      message.referenced_message = referenced;
    } else {
      delete message.message_reference;
    }
    this.messages.set(message.id, message);
    channel.last_message_id = message.id;
    return message;
  }

  /** Users named by `<@id>` / `<@!id>` in a text, as the `mentions` array (each with its member, as on gateway events). */
  mentionedUsers(content: string): UserObject[] {
    const ids = new Set([...content.matchAll(/<@!?(\d+)>/g)].map((m) => m[1] as string));
    return [...ids].flatMap((id) => {
      const user = this.users.get(id);
      return user ? [user] : [];
    });
  }

  /** The guild as GUILD_CREATE carries it (channels, roles, members...). */
  guildCreatePayload(): Record<string, unknown> {
    return {
      id: this.guildId,
      name: this.guildName,
      icon: null,
      splash: null,
      discovery_splash: null,
      owner_id: [...this.members.values()].find((m) => !m.user.bot)?.user.id ?? this.bot.id,
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      roles: [
        {
          id: this.guildId, // @everyone has the guild's id
          name: "@everyone",
          color: 0,
          hoist: false,
          icon: null,
          unicode_emoji: null,
          position: 0,
          permissions: "2248473465835073",
          managed: false,
          mentionable: false,
          flags: 0,
        },
      ],
      emojis: [],
      features: [],
      mfa_level: 0,
      application_id: null,
      system_channel_id: null,
      system_channel_flags: 0,
      rules_channel_id: null,
      vanity_url_code: null,
      description: null,
      banner: null,
      premium_tier: 0,
      preferred_locale: "en-US",
      public_updates_channel_id: null,
      nsfw_level: 0,
      stickers: [],
      premium_progress_bar_enabled: false,
      joined_at: new Date().toISOString(),
      large: false,
      unavailable: false,
      member_count: this.members.size,
      voice_states: [],
      members: [...this.members.values()],
      channels: [...this.channels.values()],
      threads: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }

  /** The guild as GET /users/@me/guilds lists it. */
  partialGuild(): Record<string, unknown> {
    return { id: this.guildId, name: this.guildName, icon: null, owner: false, permissions: "2248473465835073" };
  }
}
