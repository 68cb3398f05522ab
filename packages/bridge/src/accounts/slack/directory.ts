// Names the slack account needs and Slack gives as ids: channels (conversations.list, once per connect, paged) and
// users (users.info, asked once per user and kept, bounded). Lookups by name work for the users seen so far, which is
// what turning an outbound @name into a mention needs.
import type { WebClient } from "@slack/web-api";

export interface SlackUser {
  id: string;
  /** The user name (handle). */
  name: string;
  displayName: string;
  realName: string;
  avatar: string;
  isBot: boolean;
}

export interface SlackChannel {
  id: string;
  name: string;
  isMember: boolean;
}

const USERS_KEPT = 5000;

export class SlackDirectory {
  readonly #users = new Map<string, SlackUser>();
  readonly #lookups = new Map<string, Promise<SlackUser | undefined>>();
  #channels = new Map<string, SlackChannel>();

  constructor(private readonly client: () => WebClient) {}

  /** Reads every channel the app can see (public ones, and private ones it is in). */
  async loadChannels(): Promise<void> {
    const channels = new Map<string, SlackChannel>();
    let cursor: string | undefined;
    do {
      const page = await this.client().conversations.list({
        types: "public_channel,private_channel",
        exclude_archived: true,
        limit: 1000,
        ...(cursor ? { cursor } : {}),
      });
      for (const channel of page.channels ?? []) {
        if (channel.id && channel.name) {
          channels.set(channel.id, { id: channel.id, name: channel.name, isMember: channel.is_member === true });
        }
      }
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    this.#channels = channels;
  }

  /** By name (with or without "#"), or by id as "ID:C123". */
  findChannel(configured: string): SlackChannel | undefined {
    if (configured.startsWith("ID:")) return this.#channels.get(configured.slice(3));
    const name = configured.replace(/^#/, "");
    return [...this.#channels.values()].find((channel) => channel.name === name);
  }

  channelName(id: string): string | undefined {
    return this.#channels.get(id)?.name;
  }

  channelNames(): string[] {
    return [...this.#channels.values()].map((channel) => channel.name);
  }

  knownUser(id: string): SlackUser | undefined {
    return this.#users.get(id);
  }

  /** A user by id, asked of Slack the first time (undefined when Slack does not know them). */
  user(id: string): Promise<SlackUser | undefined> {
    const known = this.#users.get(id);
    if (known) return Promise.resolve(known);
    let lookup = this.#lookups.get(id);
    if (!lookup) {
      lookup = this.#fetchUser(id).finally(() => this.#lookups.delete(id));
      this.#lookups.set(id, lookup);
    }
    return lookup;
  }

  /** The id of a user seen so far whose handle or display name is `name` (case-insensitive). */
  userIdByName(name: string): string | undefined {
    const wanted = name.toLowerCase();
    for (const user of this.#users.values()) {
      if (user.name.toLowerCase() === wanted || user.displayName.toLowerCase() === wanted) return user.id;
    }
    return undefined;
  }

  async #fetchUser(id: string): Promise<SlackUser | undefined> {
    let answer: Awaited<ReturnType<WebClient["users"]["info"]>>;
    try {
      answer = await this.client().users.info({ user: id });
    } catch (error) {
      if ((error as { data?: { error?: string } }).data?.error === "user_not_found") return undefined;
      throw error;
    }
    const raw = answer.user;
    if (!raw?.id) return undefined;
    const user: SlackUser = {
      id: raw.id,
      name: raw.name ?? raw.id,
      displayName: raw.profile?.display_name ?? "",
      realName: raw.profile?.real_name || raw.real_name || "",
      avatar: raw.profile?.image_192 ?? raw.profile?.image_72 ?? "",
      isBot: raw.is_bot === true,
    };
    if (this.#users.size >= USERS_KEPT) this.#users.delete(this.#users.keys().next().value as string);
    this.#users.set(user.id, user);
    return user;
  }
}
