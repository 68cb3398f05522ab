// What reaches Matrix for one delivery: a redaction for a delete, an `m.replace` edit of the destination's copy, a
// reply (`m.in_reply_to`) for a message with a parent, an m.emote for an action, an m.notice for join/leave and topic
// events, else an m.text; the username (RemoteNickFormat) leads the body, and formatted_body carries HTML unless
// HTMLDisable. Pure: the connection sends what this returns.
import type { Delivery } from "../../core/account.ts";
import { Events, PARENT_NOT_FOUND } from "../../message.ts";
import { escapeHtml, markdownToHtml } from "./markdown.ts";

export type MatrixSend =
  | { kind: "redact"; eventId: string }
  | { kind: "message"; content: Record<string, unknown>; editOf?: string }
  | { kind: "nothing" };

export interface OutboundOptions {
  htmlDisable: boolean;
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
  if (message.text.trim() === "") return { kind: "nothing" };
  const name = matrixUsername(message.username);
  const msgtype =
    message.event === Events.userAction
      ? "m.emote"
      : message.event === Events.joinLeave || message.event === Events.topicChange
        ? "m.notice"
        : "m.text";
  const body: Record<string, unknown> = { msgtype, body: name.plain + message.text };
  if (!options.htmlDisable) {
    body.format = "org.matrix.custom.html";
    body.formatted_body = name.formatted + markdownToHtml(message.text);
  }
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
