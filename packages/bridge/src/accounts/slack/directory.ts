// Names the slack account needs and Slack gives as ids: channels (conversations.list, once per connect, paged) and
// users (users.info, asked once per user and kept, bounded). Lookups by name work for the users seen so far, which is
// what turning an outbound @name into a mention needs.
//
// A message can mention thousands of ids nobody knows (a flood): the answer "no such user" is kept too, at most a
// few users.info calls run at once, and after a 429 no user is asked for until Slack's Retry-After has passed. A
// lookup that fails or is not made answers undefined, and the caller shows the id: a name is never worth a message.
import { ErrorCode, type WebClient } from "@slack/web-api";

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
/** users.info calls in flight at once. */
const LOOKUPS_AT_ONCE = 4;
/** The wait after a 429 without a Retry-After. */
const DEFAULT_COOL_DOWN_MS = 30_000;

export class SlackDirectory {
  readonly #users = new Map<string, SlackUser>();
  /** Ids Slack said it does not know, bounded as the users are. */
  readonly #unknown = new Set<string>();
  readonly #lookups = new Map<string, Promise<SlackUser | undefined>>();
  #channels = new Map<string, SlackChannel>();
  /** Lookups running, and those waiting for a slot. */
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  /** No users.info before this time (ms since the epoch): Slack rate-limited us. */
  #coolDownUntil = 0;
  /** users.info calls made (for tests and logs). */
  lookupsMade = 0;

  constructor(
    private readonly client: () => WebClient,
    private readonly now: () => number = Date.now,
  ) {}

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

  /** Whether a lookup of this id would ask Slack (not known either way, and not rate-limited now). */
  wouldAsk(id: string): boolean {
    return !this.#users.has(id) && !this.#unknown.has(id) && this.now() >= this.#coolDownUntil;
  }

  /**
   * A user by id, asked of Slack the first time; undefined when Slack does not know them, and also, for now, when
   * Slack could not be asked (rate-limited, unreachable). Never rejects.
   */
  user(id: string): Promise<SlackUser | undefined> {
    const known = this.#users.get(id);
    if (known) return Promise.resolve(known);
    if (this.#unknown.has(id)) return Promise.resolve(undefined);
    let lookup = this.#lookups.get(id);
    if (!lookup) {
      lookup = this.#queuedFetch(id).finally(() => this.#lookups.delete(id));
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

  async #queuedFetch(id: string): Promise<SlackUser | undefined> {
    if (this.#running >= LOOKUPS_AT_ONCE) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running++;
    try {
      // Checked again after the wait: a 429 meanwhile stops the lookups still queued.
      if (this.now() < this.#coolDownUntil) return undefined;
      return await this.#fetchUser(id);
    } catch {
      return undefined;
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }

  async #fetchUser(id: string): Promise<SlackUser | undefined> {
    let answer: Awaited<ReturnType<WebClient["users"]["info"]>>;
    this.lookupsMade++;
    try {
      answer = await this.client().users.info({ user: id });
    } catch (error) {
      const failure = error as { data?: { error?: string }; retryAfter?: number; code?: string };
      if (failure.data?.error === "user_not_found") {
        this.#rememberUnknown(id);
        return undefined;
      }
      if (failure.code === ErrorCode.RateLimitedError) {
        const wait = typeof failure.retryAfter === "number" ? failure.retryAfter * 1000 : DEFAULT_COOL_DOWN_MS;
        this.#coolDownUntil = Math.max(this.#coolDownUntil, this.now() + wait);
      }
      throw error;
    }
    const raw = answer.user;
    if (!raw?.id) {
      this.#rememberUnknown(id);
      return undefined;
    }
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

  #rememberUnknown(id: string): void {
    if (this.#unknown.size >= USERS_KEPT) this.#unknown.delete(this.#unknown.values().next().value as string);
    this.#unknown.add(id);
  }
}
