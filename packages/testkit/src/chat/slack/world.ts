// The state of one simulated Slack workspace: users (people and bot users), apps with their tokens, channels with
// their members and messages, in the object shapes Slack's Web API returns (api.slack.com/types/user,
// /types/conversation, /events/message). Message timestamps ("ts") are unique and increasing, as Slack's are, and
// double as message ids.
import type { FileObject } from "./files.ts";

export interface UserObject {
  id: string;
  team_id: string;
  name: string;
  deleted: boolean;
  real_name: string;
  is_bot: boolean;
  is_app_user: boolean;
  profile: {
    display_name: string;
    real_name: string;
    image_72: string;
    image_192: string;
    bot_id?: string;
  };
}

/** An app installed in the workspace: its bot user, and the bot and app-level tokens. */
export interface SlackApp {
  appId: string;
  botId: string;
  botToken: string;
  appToken: string;
  user: UserObject;
}

export interface MessageRecord {
  type: "message";
  ts: string;
  text: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  subtype?: string;
  username?: string;
  icons?: { image_48?: string; emoji?: string };
  thread_ts?: string;
  parent_user_id?: string;
  reply_count?: number;
  edited?: { user: string; ts: string };
  /** Shared files (subtype file_share). */
  files?: FileObject[];
  upload?: boolean;
  /** Not part of Slack's shape: set when deleted (the record is kept for the test's history view). */
  deleted?: boolean;
}

export interface ChannelState {
  id: string;
  name: string;
  isPrivate: boolean;
  created: number;
  creator: string;
  members: Set<string>;
  messages: MessageRecord[];
  topic: string;
}

const ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

export class SlackWorld {
  readonly teamId = "T0SIMULATE";
  readonly teamDomain = "switchboard-sim";
  readonly users = new Map<string, UserObject>();
  readonly apps: SlackApp[] = [];
  readonly channels = new Map<string, ChannelState>();
  #counter = 0;
  #lastTs = 0;

  /** A Slack-style id: a type letter and ten characters. */
  newId(prefix: string): string {
    let n = ++this.#counter * 7919 + 104_729;
    let id = "";
    for (let i = 0; i < 10; i++) {
      id += ID_CHARS[n % ID_CHARS.length];
      n = Math.floor(n / ID_CHARS.length) + i * 31;
    }
    return `${prefix}${id}`;
  }

  /** "<seconds>.<microseconds>", strictly increasing. */
  nextTs(): string {
    const micros = Math.max(Date.now() * 1000, this.#lastTs + 1);
    this.#lastTs = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, "0")}`;
  }

  addUser(name: string, options: { displayName?: string; realName?: string; botId?: string } = {}): UserObject {
    const id = this.newId("U");
    const realName = options.realName ?? name;
    const user: UserObject = {
      id,
      team_id: this.teamId,
      name,
      deleted: false,
      real_name: realName,
      is_bot: options.botId !== undefined,
      is_app_user: false,
      profile: {
        display_name: options.displayName ?? "",
        real_name: realName,
        image_72: `https://avatars.slack-edge.example/${id}_72.png`,
        image_192: `https://avatars.slack-edge.example/${id}_192.png`,
        ...(options.botId ? { bot_id: options.botId } : {}),
      },
    };
    this.users.set(id, user);
    return user;
  }

  addApp(name: string): SlackApp {
    const botId = this.newId("B");
    const app: SlackApp = {
      appId: this.newId("A"),
      botId,
      botToken: `xoxb-${this.#counter}-${this.newId("").toLowerCase()}-simulatedbottoken`,
      appToken: `xapp-1-${this.newId("A")}-${this.#counter}-simulatedapptoken`,
      user: this.addUser(name, { botId }),
    };
    this.apps.push(app);
    return app;
  }

  addChannel(name: string, creator: string, isPrivate = false): ChannelState {
    const channel: ChannelState = {
      id: this.newId(isPrivate ? "G" : "C"),
      name,
      isPrivate,
      created: Math.floor(Date.now() / 1000),
      creator,
      members: new Set([creator]),
      messages: [],
      topic: "",
    };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** By id, or by name with or without "#" (as chat.postMessage still accepts). */
  channel(idOrName: string): ChannelState | undefined {
    const byId = this.channels.get(idOrName);
    if (byId) return byId;
    const name = idOrName.replace(/^#/, "");
    return [...this.channels.values()].find((channel) => channel.name === name);
  }

  message(channel: ChannelState, ts: string): MessageRecord | undefined {
    return channel.messages.find((message) => message.ts === ts && !message.deleted);
  }

  conversationObject(channel: ChannelState, viewer: string): Record<string, unknown> {
    return {
      id: channel.id,
      name: channel.name,
      name_normalized: channel.name,
      is_channel: !channel.isPrivate,
      is_group: channel.isPrivate,
      is_im: false,
      is_mpim: false,
      is_private: channel.isPrivate,
      is_archived: false,
      is_general: channel.name === "general",
      is_shared: false,
      is_org_shared: false,
      is_member: channel.members.has(viewer),
      created: channel.created,
      creator: channel.creator,
      num_members: channel.members.size,
      topic: { value: channel.topic, creator: "", last_set: 0 },
      purpose: { value: "", creator: "", last_set: 0 },
    };
  }
}

/** A message as Slack shows it in API answers and events (the simulator's own fields removed). */
export function publicMessage(record: MessageRecord): Omit<MessageRecord, "deleted"> {
  const { deleted: _deleted, ...shown } = record;
  return structuredClone(shown);
}
