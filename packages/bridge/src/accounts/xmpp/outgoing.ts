// Stanzas the bridge sends to a MUC: joining, leaving, a groupchat message or its correction.
import xml, { type Element } from "@xmpp/xml";
import { utf8Cost } from "../fit-text.ts";
import { NS } from "./namespaces.ts";

const NOT_IN_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what is removed
  /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text safe to put in XML 1.0: characters XML forbids (C0 controls other than tab and line breaks, lone surrogates,
 * U+FFFE/U+FFFF) are removed. A server closes the whole stream on one of them, so they must never reach it.
 */
export function xmlSafeText(text: string): string {
  return text.replace(NOT_IN_XML, "");
}

/** Bytes a UTF-16 unit of text takes in a stanza: UTF-8, with the characters XML text escapes as entities. */
export function xmlTextCost(code: number): number {
  if (code === 0x26) return 5; // &amp;
  if (code === 0x3c || code === 0x3e) return 4; // &lt; &gt;
  if (code === 0x22 || code === 0x27) return 6; // &quot; &apos;
  return utf8Cost(code);
}

export interface GroupchatOptions {
  /** The room's bare JID, e.g. "general@conference.example.org". */
  room: string;
  text: string;
  /** Our id for the message; also sent as XEP-0359 origin-id, which the room keeps in its reflection. */
  id: string;
  /** The id of the message this one corrects (XEP-0308). */
  replaceId?: string;
}

/** <message type="groupchat"> with a body, an origin-id and, for an edit, a XEP-0308 <replace/>. */
export function groupchatMessage(options: GroupchatOptions): Element {
  const children = [xml("body", {}, xmlSafeText(options.text))];
  if (options.replaceId !== undefined) children.push(xml("replace", { xmlns: NS.correction, id: options.replaceId }));
  children.push(xml("origin-id", { xmlns: NS.sid, id: options.id }));
  return xml("message", { to: options.room, type: "groupchat", id: options.id }, ...children);
}

export interface FileMessageOptions {
  room: string;
  /** The file's GET URL on the server's upload service. */
  url: string;
  id: string;
}

/**
 * A shared file as XMPP clients send one (XEP-0363 §5): the URL as the body and as XEP-0066 out-of-band data;
 * Conversations, Gajim and Dino show the file inline when the two are the same.
 */
export function fileMessage(options: FileMessageOptions): Element {
  const url = xmlSafeText(options.url);
  return xml(
    "message",
    { to: options.room, type: "groupchat", id: options.id },
    xml("body", {}, url),
    xml("x", { xmlns: NS.oob }, xml("url", {}, url)),
    xml("origin-id", { xmlns: NS.sid, id: options.id }),
  );
}

export interface JoinOptions {
  room: string;
  nick: string;
  /** The room's password (a gateway channel's `options.key`). */
  password?: string;
  /** History to ask for; 0 (the default) asks the room not to replay any. */
  maxStanzas?: number;
}

/** The presence that joins a room as `nick` (XEP-0045 §7.2), asking for no history by default. */
export function mucJoinPresence(options: JoinOptions): Element {
  const x = xml("x", { xmlns: NS.muc }, xml("history", { maxstanzas: String(options.maxStanzas ?? 0) }));
  if (options.password !== undefined && options.password !== "") x.append(xml("password", {}, options.password));
  return xml("presence", { to: `${options.room}/${options.nick}` }, x);
}

/** The presence that leaves a room. */
export function mucLeavePresence(room: string, nick: string, status?: string): Element {
  const children = status === undefined ? [] : [xml("status", {}, xmlSafeText(status))];
  return xml("presence", { to: `${room}/${nick}`, type: "unavailable" }, ...children);
}
