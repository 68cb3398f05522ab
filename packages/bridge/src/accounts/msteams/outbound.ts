// A bridged message as a Teams message body: HTML with everything escaped, the nick (RemoteNickFormat) in front, an
// action in italics, files' URLs on their own lines, cut to Teams' limit (about 28 KB of HTML, counted as escaped
// UTF-8) with MessageClipped. Teams reads mentions only from <at> tags, so relayed text cannot notify anyone.
import type { Delivery } from "../../core/account.ts";
import { Events } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { fitText } from "../fit-text.ts";
import { htmlCost, textToHtml } from "./html.ts";

/** Teams refuses bodies past about 28 KB; this leaves room for the tags around the text. */
export const TEAMS_MAX_HTML_BYTES = 28_000 - 64;

export function outboundHtml(delivery: Delivery, clipped: string): string {
  const message = delivery.message;
  let text = message.text;
  for (const line of fileLines(message)) text = text === "" ? line : `${text}\n${line}`;
  if (text.trim() === "") return "";
  const nick = message.username;
  const [fitted = ""] = fitText(text, { limit: TEAMS_MAX_HTML_BYTES - measureNick(nick), cost: htmlCost }, { clipped });
  const body = message.event === Events.userAction ? `<em>${textToHtml(fitted)}</em>` : textToHtml(fitted);
  return `<p>${textToHtml(nick)}${body}</p>`;
}

function measureNick(nick: string): number {
  let total = 0;
  for (let index = 0; index < nick.length; index++) total += htmlCost(nick.charCodeAt(index));
  return Math.min(total, TEAMS_MAX_HTML_BYTES / 2);
}
