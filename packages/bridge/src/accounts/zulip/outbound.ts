// A bridged message as a Zulip message's content: the nick (RemoteNickFormat) in front, as Matterbridge writes it
// (a Zulip bot cannot post under another name), an action in italics (Zulip's `/me` would name the bot as the one
// acting), files' URLs on their own lines, mass mentions (@**all**, @**everyone**, @**stream**, @**channel**,
// @**topic**) neutralised unless AllowMassMentions, cut at Zulip's 10,000 characters with MessageClipped.
import type { Delivery } from "../../core/account.ts";
import { Events } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { fitText } from "../fit-text.ts";
import { neutraliseMassMentions } from "../mass-mentions.ts";

/** Zulip's default max_message_length (it truncates longer messages itself, without a marker we choose). */
const ZULIP_MAX_TEXT = 10_000;

/** `@**all**` and its kin, also silent (`@_**all**`): the joiner goes after the `@`, so Zulip no longer reads it. */
const ZULIP_MASS_MENTIONS = /(^|[^\w@.-])@(_?\*\*(?:all|everyone|stream|channel|topic)\*\*)/giu;

export interface OutboundSettings {
  MessageClipped: string;
  AllowMassMentions: boolean;
}

export function outboundText(delivery: Delivery, settings: OutboundSettings): string {
  const message = delivery.message;
  let text = message.text;
  if (message.event === Events.userAction && text.trim() !== "") text = `*${text.trim()}*`;
  for (const line of fileLines(message)) text = text === "" ? line : `${text}\n${line}`;
  if (text.trim() === "") return "";
  text = `${message.username}${text}`;
  if (!settings.AllowMassMentions) text = neutraliseMassMentions(text, ZULIP_MASS_MENTIONS);
  return fitText(text, { limit: ZULIP_MAX_TEXT }, { clipped: settings.MessageClipped })[0] ?? "";
}
