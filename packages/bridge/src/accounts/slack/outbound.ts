// A bridged message as a Slack post: the text (a /me action in italics as Matterbridge, files' URLs on their own
// lines, the nick in front with PrefixMessagesWithNick, cut at Slack's 40,000 characters), and the name and avatar
// it is posted under (the chat:write.customize scope: the nick as the post's username, the source's avatar or
// IconURL as its icon) — or the app's own identity with PrefixMessagesWithNick.
import type { Delivery } from "../../core/account.ts";
import { Events } from "../../message.ts";
import { clipText } from "../clip-text.ts";
import { fileLines } from "../file-lines.ts";
import { iconUrl } from "../icon-url.ts";

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
  for (const line of fileLines(message)) text = text === "" ? line : `${text}\n${line}`;
  if (settings.PrefixMessagesWithNick) text = `${message.username}${text}`;
  return clipText(text, SLACK_MAX_TEXT, settings.MessageClipped);
}

/** The username and icon a post shows (nothing: the app's own). */
export function postedName(delivery: Delivery, settings: OutboundSettings): { username?: string; icon_url?: string } {
  if (settings.PrefixMessagesWithNick) return {};
  const message = delivery.message;
  const username = message.username.trim().slice(0, USERNAME_MAX);
  const icon = message.avatar || iconUrl(settings.IconURL, message);
  return { ...(username === "" ? {} : { username }), ...(icon === "" ? {} : { icon_url: icon }) };
}
