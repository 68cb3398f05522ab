// Twitch chat through the irc account (Matterbridge bridges it with an ordinary irc account; so do we, with what
// Twitch adds): its capabilities, what its tags say about a message, and its rate limit. Pure, and time injectable.
import { Events, emptyMessage, type Message } from "../../message.ts";

export const TWITCH_CAPS = ["twitch.tv/tags", "twitch.tv/commands"];
/** Twitch's bound on a user's messages: 20 per 30 s, 100 in a channel where the bot is a moderator (or the owner). */
export const TWITCH_WINDOW_MS = 30_000;
export const TWITCH_LIMIT = 20;
export const TWITCH_MODERATOR_LIMIT = 100;

/** Twitch mode: the `Twitch` key, or a Server at Twitch's chat host. */
export function isTwitch(settings: { Twitch: boolean; Server: string }): boolean {
  return settings.Twitch || /^irc\.chat\.twitch\.tv:/i.test(settings.Server.trim());
}

/** A chat message's fields from Twitch's tags: the display name, Twitch's user id, the message id, a reply's parent. */
export function applyTwitchTags(message: Message, tags: Readonly<Record<string, string>>): Message {
  const displayName = tags["display-name"]?.trim();
  if (displayName) message.username = displayName;
  if (tags["user-id"]) message.userid = tags["user-id"];
  if (tags.id) message.id = tags.id;
  if (tags["reply-parent-msg-id"]) {
    message.parent_id = tags["reply-parent-msg-id"];
    // Twitch puts "@parent " before a reply's text; the parent is in parent_id already.
    const login = tags["reply-parent-user-login"];
    if (login && message.text.toLowerCase().startsWith(`@${login.toLowerCase()} `)) {
      message.text = message.text.slice(login.length + 2);
    }
  }
  return message;
}

/** CLEARMSG: a moderator deleted one message, named by its id. */
export function deleteMessage(channel: string, tags: Readonly<Record<string, string>>): Message | undefined {
  const id = tags["target-msg-id"];
  if (!id) return undefined;
  return emptyMessage({ channel, id, event: Events.msgDelete, username: tags.login ?? "", text: "" });
}

/**
 * Twitch's sliding window: `reserve` returns how long to wait before the next message may go (0: now) and counts it
 * at that time, so several channels sending at once never exceed the bound together.
 */
export class SlidingWindowLimit {
  readonly #sent: number[] = [];

  constructor(
    readonly windowMs: number,
    readonly now: () => number = Date.now,
  ) {}

  reserve(limit: number): number {
    const now = this.now();
    while (this.#sent.length > 0 && (this.#sent[0] as number) <= now - this.windowMs) this.#sent.shift();
    // The slot frees when the message `limit` places back leaves the window (reservations are in time order).
    const slot =
      this.#sent.length < limit
        ? now
        : Math.max(now, (this.#sent[this.#sent.length - limit] as number) + this.windowMs);
    this.#sent.push(Math.max(slot, this.#sent[this.#sent.length - 1] ?? slot));
    return slot - now;
  }
}
