// A bridged message as the text and options of one Bot API call, following MessageFormat:
//   ""          plain text: the nick (RemoteNickFormat) and the text as they are, no parse_mode;
//   "HTML"      the nick as written (it may hold HTML, as in Matterbridge) and the text's Markdown as Telegram HTML;
//   "HTMLNick"  the nick as written (HTML) and the text escaped, shown as typed;
//   "Markdown"  Telegram's legacy Markdown: nick and text as they are (as in Matterbridge);
//   "MarkdownV2" the nick escaped and the text's Markdown converted, everything else escaped.
// An action (user_action) is shown in italics ("* " before it in plain text). Attachments with a URL add one line
// each ("comment : url"). When Telegram still refuses the markup, the connection resends `plain` without parse_mode.
// Telegram refuses texts over 4,096 characters once its markup is parsed: the body is clipped (MessageClipped) so
// that the plain form fits, which the visible text of every format never exceeds (markup is not counted).
import type { Delivery } from "../../core/account.ts";
import { Events, PARENT_NOT_FOUND } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { fitText } from "../fit-text.ts";
import { escapeHtml, escapeMarkdownV2, markdownToHtml, markdownToMarkdownV2 } from "./markup.ts";

/** Telegram's limit on a message's text after entities parsing, in UTF-16 units (as its entity offsets). */
const TELEGRAM_MAX_TEXT = 4096;
export const DEFAULT_CLIPPED = "<clipped message>";

export type ParseMode = "HTML" | "Markdown" | "MarkdownV2";

export interface OutboundText {
  text: string;
  parseMode: ParseMode | undefined;
  /** The same message as plain text, for when Telegram refuses the markup. */
  plain: string;
}

export function outboundText(delivery: Delivery, messageFormat: string, clipped = DEFAULT_CLIPPED): OutboundText {
  const message = delivery.message;
  const action = message.event === Events.userAction;
  const nick = message.username;
  // A reply whose parent this destination cannot show (Matterbridge's hint).
  const hint = message.parent_id === PARENT_NOT_FOUND ? "[reply]: " : "";
  const lead = action ? `* ${nick}${hint}` : `${nick}${hint}`;
  const whole = [message.text, ...fileLines(delivery.message)].filter((line) => line !== "").join("\n");
  const body = (fitText(whole, { limit: TELEGRAM_MAX_TEXT }, { prefix: lead, clipped })[0] ?? "").slice(lead.length);
  const plain = lead + body;
  switch (messageFormat.toLowerCase()) {
    case "html": {
      const html = escapeHtml(hint) + markdownToHtml(body);
      return { text: nick + (action ? `<i>${html}</i>` : html), parseMode: "HTML", plain };
    }
    case "htmlnick": {
      const html = escapeHtml(hint + body);
      return { text: nick + (action ? `<i>${html}</i>` : html), parseMode: "HTML", plain };
    }
    case "markdownv2": {
      const v2 = escapeMarkdownV2(hint) + markdownToMarkdownV2(body);
      return { text: escapeMarkdownV2(nick) + (action ? `_${v2}_` : v2), parseMode: "MarkdownV2", plain };
    }
    case "markdown":
      return { text: nick + hint + (action ? `_${body}_` : body), parseMode: "Markdown", plain };
    default:
      return { text: plain, parseMode: undefined, plain };
  }
}
