// What reaches Matrix for one delivery: a redaction for a delete, an `m.replace` edit of the destination's copy, a
// reply (`m.in_reply_to`) for a message with a parent, an m.emote for an action, an m.notice for join/leave and topic
// events, else an m.text, files not uploaded as their link lines; the username (RemoteNickFormat) leads the body, and formatted_body carries HTML unless
// HTMLDisable; a text too long for one event is clipped (MessageClipped). Unless AllowMassMentions, `@room` is neutralised and the event declares no mentions (`m.mentions`).
// Pure: the connection sends what this returns.
import type { Delivery } from "../../core/account.ts";
import { Events, PARENT_NOT_FOUND } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { fitText, utf8Cost } from "../fit-text.ts";
import { MATRIX_MASS_MENTIONS, neutraliseMassMentions } from "../mass-mentions.ts";
import { escapeHtml, markdownToHtml } from "./markdown.ts";

export type MatrixSend =
  | { kind: "redact"; eventId: string }
  | { kind: "message"; content: Record<string, unknown>; editOf?: string }
  | { kind: "nothing" };

export interface OutboundOptions {
  htmlDisable: boolean;
  allowMassMentions: boolean;
  messageClipped: string;
}

/**
 * Homeservers refuse events over 65,536 bytes of JSON (M_TOO_LARGE), counting what they add (ids, signatures, a
 * reply's relation): the text's share, in body and formatted_body together; an edit carries it twice (its fallback
 * and m.new_content), so this is under half.
 */
const MATRIX_MAX_TEXT_BYTES = 30_000;

/**
 * Bytes one UTF-16 unit of the text may take in the event: in body, and in formatted_body once Markdown has made
 * tags and the HTML and the JSON are escaped. Letters at most twice (a link's text and its href), punctuation,
 * spaces and controls as their longest escape or tag (`&quot;`, `<strong>`, `<br>`, `\u0001`).
 */
function matrixCost(code: number): number {
  const isWordLike = code >= 0x80 || (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a);
  return isWordLike ? 3 * utf8Cost(code) : 16;
}

const HTML_CLOSING_TAG = /<\/.*?>/;
const HTML_TAG = /<[^>]*>/g;

/**
 * A username with a closing tag is HTML already (a RemoteNickFormat such as "<b>{NICK}</b>"): shown as is and
 * stripped of tags in the plain body; any other is escaped. As Matterbridge.
 */
export function matrixUsername(username: string): { plain: string; formatted: string } {
  if (HTML_CLOSING_TAG.test(username)) return { plain: username.replace(HTML_TAG, ""), formatted: username };
  return { plain: username, formatted: escapeHtml(username) };
}

export function matrixSend(delivery: Delivery, options: OutboundOptions): MatrixSend {
  const message = delivery.message;
  if (message.event === Events.msgDelete) {
    return message.id === "" ? { kind: "nothing" } : { kind: "redact", eventId: message.id };
  }
  const shown = [message.text, ...fileLines(message)].filter((line) => line !== "").join("\n");
  if (shown.trim() === "") return { kind: "nothing" };
  const unmuted = options.allowMassMentions;
  const name = matrixUsername(
    unmuted ? message.username : neutraliseMassMentions(message.username, MATRIX_MASS_MENTIONS),
  );
  const whole = unmuted ? shown : neutraliseMassMentions(shown, MATRIX_MASS_MENTIONS);
  const limit = { limit: MATRIX_MAX_TEXT_BYTES, cost: matrixCost };
  const text = fitText(whole, limit, { clipped: options.messageClipped })[0] ?? "";
  const msgtype =
    message.event === Events.userAction
      ? "m.emote"
      : message.event === Events.joinLeave || message.event === Events.topicChange
        ? "m.notice"
        : "m.text";
  const body: Record<string, unknown> = { msgtype, body: name.plain + text };
  if (!options.htmlDisable) {
    body.format = "org.matrix.custom.html";
    body.formatted_body = name.formatted + markdownToHtml(text);
  }
  // Intentional mentions (Matrix 1.7): an event that declares none notifies nobody from its body in current clients.
  if (!unmuted) body["m.mentions"] = {};
  if (message.id !== "") {
    // The spec's edit: the new content, and a "* " fallback for clients that do not show edits.
    const fallback: Record<string, unknown> = { ...body, body: `* ${body.body as string}` };
    if (body.formatted_body !== undefined) fallback.formatted_body = `* ${body.formatted_body as string}`;
    return {
      kind: "message",
      editOf: message.id,
      content: { ...fallback, "m.new_content": body, "m.relates_to": { rel_type: "m.replace", event_id: message.id } },
    };
  }
  if (message.parent_id !== "" && message.parent_id !== PARENT_NOT_FOUND) {
    body["m.relates_to"] = { "m.in_reply_to": { event_id: message.parent_id } };
  }
  return { kind: "message", content: body };
}
