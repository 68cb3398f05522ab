// A bridged message as a Mattermost post: the text (a /me action in single asterisks as Matterbridge, files' URLs on
// their own lines, the nick in front with PrefixMessagesWithNick, mass mentions neutralised unless AllowMassMentions,
// cut at Mattermost's 16,383 characters) and the props that show it under the relayed user's name and avatar
// (override_username / override_icon_url: the server shows them for bot accounts when "Enable integrations to
// override usernames" is on).
import type { Delivery } from "../../core/account.ts";
import { Events } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { fitText } from "../fit-text.ts";
import { iconUrl } from "../icon-url.ts";
import { MATTERMOST_MASS_MENTIONS, neutraliseMassMentions } from "../mass-mentions.ts";

/** Mattermost counts code points; UTF-16 units are never fewer, so counting those never exceeds it. */
export const MATTERMOST_MAX_TEXT = 16_383;

export interface OutboundSettings {
  PrefixMessagesWithNick: boolean;
  IconURL: string;
  MessageClipped: string;
  AllowMassMentions: boolean;
}

export function outboundText(delivery: Delivery, settings: OutboundSettings): string {
  const message = delivery.message;
  let text = message.text;
  if (message.event === Events.userAction && text !== "") text = `*${text}*`;
  for (const line of fileLines(message)) text = text === "" ? line : `${text}\n${line}`;
  if (settings.PrefixMessagesWithNick) text = `${message.username}${text}`;
  if (!settings.AllowMassMentions) text = neutraliseMassMentions(text, MATTERMOST_MASS_MENTIONS);
  return fitText(text, { limit: MATTERMOST_MAX_TEXT }, { clipped: settings.MessageClipped })[0] ?? "";
}

/** The post's props: who it shows as, and a mark that the bridge made it. */
export function postProps(delivery: Delivery, settings: OutboundSettings): Record<string, unknown> {
  const props: Record<string, unknown> = { from_switchboard: true };
  if (settings.PrefixMessagesWithNick) return props;
  const message = delivery.message;
  const username = message.username.trim();
  if (username !== "") props.override_username = username;
  const icon = message.avatar || iconUrl(settings.IconURL, message);
  if (icon !== "") props.override_icon_url = icon;
  return props;
}
