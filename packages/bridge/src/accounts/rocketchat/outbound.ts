// A bridged message as a Rocket.Chat message: the text (an action in underscores, as Rocket.Chat's /me writes it;
// files' URLs on their own lines; the nick in front with PrefixMessagesWithNick; @all and @here neutralised unless
// AllowMassMentions; cut at Message_MaxAllowedSize's default 5,000 characters) and, as Matterbridge does, the alias
// and avatar that show it under the relayed user's name (they need the bot role).
import type { Delivery } from "../../core/account.ts";
import { Events } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { fitText } from "../fit-text.ts";
import { massMentionPattern, neutraliseMassMentions } from "../mass-mentions.ts";

const ROCKETCHAT_MAX_TEXT = 5000;
const ROCKETCHAT_MASS_MENTIONS = massMentionPattern(["all", "here"]);

export interface OutboundSettings {
  PrefixMessagesWithNick: boolean;
  MessageClipped: string;
  AllowMassMentions: boolean;
}

export function outboundText(delivery: Delivery, settings: OutboundSettings): string {
  const message = delivery.message;
  let text = message.text;
  if (message.event === Events.userAction && text.trim() !== "") text = `_${text.trim()}_`;
  for (const line of fileLines(message)) text = text === "" ? line : `${text}\n${line}`;
  if (text.trim() === "") return "";
  if (settings.PrefixMessagesWithNick) text = `${message.username}${text}`;
  if (!settings.AllowMassMentions) text = neutraliseMassMentions(text, ROCKETCHAT_MASS_MENTIONS);
  return fitText(text, { limit: ROCKETCHAT_MAX_TEXT }, { clipped: settings.MessageClipped })[0] ?? "";
}

/**
 * alias and avatar: who the message shows as (none with PrefixMessagesWithNick). An avatar written as an emoji
 * (":ghost:") is Rocket.Chat's `emoji` instead.
 */
export function postedAs(
  delivery: Delivery,
  settings: OutboundSettings,
): { alias?: string; avatar?: string; emoji?: string } {
  if (settings.PrefixMessagesWithNick) return {};
  const alias = delivery.message.username.trim();
  const avatar = delivery.message.avatar;
  const picture = /^https?:\/\//i.test(avatar) ? { avatar } : /^:[\w+-]+:$/.test(avatar) ? { emoji: avatar } : {};
  return { ...(alias !== "" ? { alias } : {}), ...picture };
}
