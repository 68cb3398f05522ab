// A bridged message as a Slack post: the text (a /me action in italics as Matterbridge, files' URLs on their own
// lines, the nick in front with PrefixMessagesWithNick, cut at Slack's 40,000 characters), and the name and avatar
// it is posted under (the chat:write.customize scope: the nick as the post's username, the source's avatar or
// IconURL as its icon) — or the app's own identity with PrefixMessagesWithNick.
import type { Delivery } from "../../core/account.ts";
import { Events } from "../../message.ts";

/** Slack cuts longer texts. */
export const SLACK_MAX_TEXT = 40_000;
/** Slack's limit on a post's username. */
const USERNAME_MAX = 80;

export interface OutboundSettings {
  PrefixMessagesWithNick: boolean;
  IconURL: string;
  MessageClipped: string;
}

/** The text to post, before Slack's escaping. */
export function outboundText(delivery: Delivery, settings: OutboundSettings): string {
  const message = delivery.message;
  let text = message.text;
  if (message.event === Events.userAction && text !== "") text = `_${text}_`;
  for (const file of message.Extra?.file ?? []) {
    if (typeof file !== "object" || file === null) continue;
    const { URL: url, Comment: comment } = file as { URL?: unknown; Comment?: unknown };
    if (typeof url !== "string" || url === "") continue;
    const line = typeof comment === "string" && comment !== "" ? `${comment} : ${url}` : url;
    text = text === "" ? line : `${text}\n${line}`;
  }
  if (settings.PrefixMessagesWithNick) text = `${message.username}${text}`;
  if (text.length <= SLACK_MAX_TEXT) return text;
  const marker = settings.MessageClipped === "" ? "" : ` ${settings.MessageClipped}`;
  let cut = SLACK_MAX_TEXT - marker.length;
  // Never between the two halves of a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(text.charAt(cut - 1))) cut--;
  return `${text.slice(0, cut)}${marker}`;
}

/** Matterbridge's IconURL placeholders: {NICK}, {BRIDGE} (the source account's name) and {PROTOCOL}. */
function iconUrl(template: string, delivery: Delivery): string {
  const message = delivery.message;
  const [protocol = "", ...name] = message.account.split(".");
  return template
    .replaceAll("{NICK}", encodeURIComponent(message.username.trim()))
    .replaceAll("{BRIDGE}", name.join("."))
    .replaceAll("{PROTOCOL}", message.protocol || protocol);
}

/** The username and icon a post shows (nothing: the app's own). */
export function postedName(delivery: Delivery, settings: OutboundSettings): { username?: string; icon_url?: string } {
  if (settings.PrefixMessagesWithNick) return {};
  const message = delivery.message;
  const username = message.username.trim().slice(0, USERNAME_MAX);
  const icon = message.avatar || (settings.IconURL === "" ? "" : iconUrl(settings.IconURL, delivery));
  return { ...(username === "" ? {} : { username }), ...(icon === "" ? {} : { icon_url: icon }) };
}
