// A bridged message as Discord message contents: the nick prefix (bot messages) or the webhook's username, /me
// actions in italics (as Matterbridge), attachments' URLs, `@name` of a known member turned into a real mention,
// and the text split into at most MessageSplitMaxCount messages of Discord's 2000 characters, then clipped.
import type { Delivery } from "../../core/account.ts";
import { Events } from "../../message.ts";
import { fileLines } from "../file-lines.ts";

/** Discord's limit per message (counted here in UTF-16 units, never more than Discord's count). */
export const DISCORD_MAX_LENGTH = 2000;
/** Discord's limit on a webhook message's username. */
export const WEBHOOK_USERNAME_MAX = 80;

export interface OutboundSettings {
  MessageClipped: string;
  MessageSplitMaxCount: number;
}

/** The text a message shows on Discord, without the nick: actions in italics, one line per attachment URL. */
export function discordText(delivery: Delivery): string {
  const message = delivery.message;
  let text = message.text;
  if (message.event === Events.userAction && text !== "") text = `_${text}_`;
  for (const line of fileLines(message)) text = text === "" ? line : `${text}\n${line}`;
  return text;
}

/**
 * Splits `text` (each part prefixed with `prefix`) into at most `maxParts` parts of at most `limit` characters,
 * cutting at a newline or space near the limit when there is one and never inside a surrogate pair; the last part is
 * clipped with `clipped` when the text does not fit.
 */
export function splitMessage(
  text: string,
  prefix: string,
  maxParts: number,
  clipped: string,
  limit = DISCORD_MAX_LENGTH,
): string[] {
  const room = Math.max(limit - prefix.length, 100);
  const parts: string[] = [];
  let rest = text;
  const max = Math.max(1, maxParts);
  while (rest.length > room && parts.length < max - 1) {
    const cut = cutPoint(rest, room);
    parts.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > room) {
    const marker = clipped === "" ? "" : ` ${clipped}`;
    rest = `${rest.slice(0, safeCut(rest, Math.max(room - marker.length, 0)))}${marker}`;
  }
  parts.push(rest);
  return parts.map((part) => `${prefix}${part}`);
}

function cutPoint(text: string, room: number): number {
  const window = text.slice(0, room + 1);
  const newline = window.lastIndexOf("\n");
  if (newline > room / 2) return newline + 1;
  const space = window.lastIndexOf(" ");
  if (space > room / 2) return space + 1;
  return safeCut(text, room);
}

/** `at`, or one less when that would cut a surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
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

/** AllowMention as discord.js's allowedMentions: undefined (all allowed) when the key is not set. */
export function allowedMentions(
  allow: readonly string[] | undefined,
): { parse: ("everyone" | "roles" | "users")[] } | undefined {
  if (allow === undefined) return undefined;
  const kinds = new Set(["everyone", "roles", "users"]);
  return { parse: allow.filter((kind) => kinds.has(kind)) as ("everyone" | "roles" | "users")[] };
}
