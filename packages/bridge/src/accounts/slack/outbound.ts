// A bridged message as a Slack post: the text (a /me action in italics as Matterbridge, files' URLs on their own
// lines, the nick in front with PrefixMessagesWithNick, clipped so that Slack's 40,000 characters hold it once
// escaped), and the name and avatar it is posted under (the chat:write.customize scope: the nick as the post's
// username, the source's avatar or IconURL as its icon) — or the app's own identity with PrefixMessagesWithNick.
import type { Delivery } from "../../core/account.ts";
import { Events } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { fitText } from "../fit-text.ts";
import { iconUrl } from "../icon-url.ts";

/** Slack refuses longer texts (msg_too_long), counted after its escaping and our mentions. */
export const SLACK_MAX_TEXT = 40_000;

/**
 * What a character of our text becomes in what Slack counts: `&`, `<` and `>` are escaped (slackText), and
 * `@name` may become `<@U…>` (a user id has at most 21 characters).
 */
function slackCost(code: number): number {
  if (code === 0x26) return 5; // &amp;
  if (code === 0x3c || code === 0x3e) return 4; // &lt; &gt;
  if (code === 0x40) return 24; // "@" of "@n" → "<@" + id + ">"
  return 1;
}
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
  return fitText(text, { limit: SLACK_MAX_TEXT, cost: slackCost }, { clipped: settings.MessageClipped })[0] ?? "";
}

/** The username and icon a post shows (nothing: the app's own). */
export function postedName(delivery: Delivery, settings: OutboundSettings): { username?: string; icon_url?: string } {
  if (settings.PrefixMessagesWithNick) return {};
  const message = delivery.message;
  const username = message.username.trim().slice(0, USERNAME_MAX);
  const icon = message.avatar || iconUrl(settings.IconURL, message);
  return { ...(username === "" ? {} : { username }), ...(icon === "" ? {} : { icon_url: icon }) };
}
