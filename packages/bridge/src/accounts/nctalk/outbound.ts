// A bridged message as a Talk chat message: the text (an action in single asterisks, files' URLs on their own lines,
// the nick in front unless SeparateDisplayName sends it as the message's display name, mass mentions neutralised
// unless AllowMassMentions, cut at Talk's 32,000 characters with MessageClipped).
import type { Delivery } from "../../core/account.ts";
import { Events } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { fitText } from "../fit-text.ts";
import { massMentionPattern, neutraliseMassMentions } from "../mass-mentions.ts";

/** Talk counts characters (code points); UTF-16 units are never fewer, so counting those never exceeds it. */
export const TALK_MAX_TEXT = 32_000;

/** Talk notifies everyone in the conversation for `@all` and its alias `@here`. */
const TALK_MASS_MENTIONS = massMentionPattern(["all", "here"]);

export interface OutboundSettings {
  SeparateDisplayName: boolean;
  MessageClipped: string;
  AllowMassMentions: boolean;
}

export function outboundText(delivery: Delivery, settings: OutboundSettings): string {
  const message = delivery.message;
  let text = message.text;
  // The action's text in italics, after the nick (Talk renders Markdown).
  if (message.event === Events.userAction && text !== "") text = `*${text}*`;
  for (const line of fileLines(message)) text = text === "" ? line : `${text}\n${line}`;
  if (text.trim() === "") return "";
  if (!settings.SeparateDisplayName) text = `${message.username}${text}`;
  if (!settings.AllowMassMentions) text = neutraliseMassMentions(text, TALK_MASS_MENTIONS);
  return fitText(text, { limit: TALK_MAX_TEXT }, { clipped: settings.MessageClipped })[0] ?? "";
}
