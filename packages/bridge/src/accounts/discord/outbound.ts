// A bridged message as Discord message contents: the nick prefix (bot messages) or the webhook's username, /me
// actions in italics (as Matterbridge), attachments' URLs, `@name` of a known member turned into a real mention,
// and the text split into at most MessageSplitMaxCount messages of Discord's 2000 characters, then clipped.
import type { Delivery } from "../../core/account.ts";
import { Events } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { fitText } from "../fit-text.ts";

/** Discord's limit per message (counted here in UTF-16 units, never more than Discord's count). */
const DISCORD_MAX_LENGTH = 2000;
/** Discord's limit on a webhook message's username. */
export const WEBHOOK_USERNAME_MAX = 80;

/** The text a message shows on Discord, without the nick: actions in italics, one line per attachment URL. */
export function discordText(delivery: Delivery): string {
  const message = delivery.message;
  let text = message.text;
  if (message.event === Events.userAction && text !== "") text = `_${text}_`;
  for (const line of fileLines(message)) text = text === "" ? line : `${text}\n${line}`;
  return text;
}

/**
 * `text` (each part prefixed with `prefix`) in at most `maxParts` Discord messages, cut at a line break or space
 * near the limit, the last one clipped with `clipped` when the text does not fit.
 */
export function splitMessage(
  text: string,
  prefix: string,
  maxParts: number,
  clipped: string,
  limit = DISCORD_MAX_LENGTH,
): string[] {
  return fitText(text, { limit }, { prefix, maxParts, clipped });
}

/**
 * `@name` becomes `<@id>` when `name` is a member's nickname, display name or user name (so people are mentioned as
 * on Discord); other `@words` stay text.
 */
export function replaceMentions(text: string, memberId: (name: string) => string | undefined): string {
  return text.replace(/(^|[^\w<])@([^\s@<>#:`]{1,32})/g, (match, before: string, name: string) => {
    const trimmed = name.replace(/[.,!?;)]+$/, "");
    const id = memberId(trimmed);
    return id === undefined ? match : `${before}<@${id}>${name.slice(trimmed.length)}`;
  });
}

type MentionKind = "everyone" | "roles" | "users";
const MENTION_KINDS: ReadonlySet<string> = new Set(["everyone", "roles", "users"]);

/**
 * AllowMention as Discord's allowed_mentions. Unset, only members named in the text are notified: a relayed
 * `@everyone`, `@here` or role mention is shown but pings nobody (Matterbridge lets it ping everyone).
 */
export function allowedMentions(allow: readonly string[] | undefined): { parse: MentionKind[]; repliedUser: boolean } {
  const parse = allow === undefined ? ["users" as const] : allow.filter((k): k is MentionKind => MENTION_KINDS.has(k));
  // A reply notifies the author of the message replied to, as a reply made on Discord does, when users may be pinged.
  return { parse, repliedUser: parse.includes("users") };
}
