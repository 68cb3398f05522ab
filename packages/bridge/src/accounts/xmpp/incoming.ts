// Reading what a MUC sends: groupchat messages (live, replayed or reflected) and occupant presence.
import type { Element } from "@xmpp/xml";
import { NS } from "./namespaces.ts";

export interface IncomingGroupchat {
  /** The room's bare JID. */
  room: string;
  /** The sender's occupant nick; empty for a message from the room itself. */
  nick: string;
  /** The body ("" for a subject-only message). */
  text: string;
  /** The stanza's id attribute. */
  id?: string;
  /** XEP-0359 origin-id (set by the sender; survives the room's reflection even if the room rewrites `id`). */
  originId?: string;
  /** XEP-0359 stanza-id assigned by the room (with MAM), the most stable id to reference. */
  stanzaId?: string;
  /** XEP-0308: the id of the message this one corrects. */
  replaceId?: string;
  /** The room's subject, when the message sets or announces it. */
  subject?: string;
  /** Carries a delay stamp (XEP-0203 or XEP-0091): replayed history or a message held back by the server. */
  delayed: boolean;
  /** XEP-0066 out-of-band data: the URLs of files shared with the message (an HTTP upload's GET URL). */
  oob: OutOfBand[];
}

export interface OutOfBand {
  url: string;
  /** The sender's description of the file ("" when none). */
  desc: string;
}

/** Out-of-band URLs read from one message at most (clients send one per message). */
const MAX_OOB = 10;

function bareJid(jid: string): string {
  const slash = jid.indexOf("/");
  return slash < 0 ? jid : jid.slice(0, slash);
}

function resourceOf(jid: string): string {
  const slash = jid.indexOf("/");
  return slash < 0 ? "" : jid.slice(slash + 1);
}

const attr = (element: Element | undefined, name: string): string | undefined => {
  const value = element?.attrs[name];
  return typeof value === "string" && value !== "" ? value : undefined;
};

/** A groupchat message with a body or a subject; undefined for anything else (errors, chat states, other types). */
export function parseGroupchat(stanza: Element): IncomingGroupchat | undefined {
  if (!stanza.is("message") || stanza.attrs.type !== "groupchat") return undefined;
  const from = attr(stanza, "from");
  if (from === undefined) return undefined;
  const body = stanza.getChild("body");
  const subject = stanza.getChild("subject");
  const oob = outOfBand(stanza);
  if (body === undefined && subject === undefined && oob.length === 0) return undefined;
  const room = bareJid(from);
  const stanzaId = stanza.getChildren("stanza-id", NS.sid).find((child) => attr(child, "by") === room);
  return {
    room,
    nick: resourceOf(from),
    text: body?.text() ?? "",
    id: attr(stanza, "id"),
    originId: attr(stanza.getChild("origin-id", NS.sid), "id"),
    stanzaId: attr(stanzaId, "id"),
    replaceId: attr(stanza.getChild("replace", NS.correction), "id"),
    subject: subject === undefined ? undefined : subject.text(),
    delayed: isDelayed(stanza),
    oob,
  };
}

function outOfBand(stanza: Element): OutOfBand[] {
  const found: OutOfBand[] = [];
  for (const x of stanza.getChildren("x", NS.oob)) {
    const url = x.getChildText("url")?.trim() ?? "";
    if (url !== "") found.push({ url, desc: x.getChildText("desc")?.trim() ?? "" });
    if (found.length >= MAX_OOB) break;
  }
  return found;
}

function isDelayed(stanza: Element): boolean {
  return stanza.getChild("delay", NS.delay) !== undefined || stanza.getChild("x", NS.legacyDelay) !== undefined;
}

/** A "/me does something" body as an action (what Matterbridge's XMPP bridge does); other text unchanged. */
export function meAction(text: string): { text: string; action: boolean } {
  return text.startsWith("/me ") ? { text: text.slice(4), action: true } : { text, action: false };
}

export interface OccupantPresence {
  room: string;
  nick: string;
  kind: "available" | "unavailable" | "error";
  /** Status 110: this presence is about us (the end of our join, or our leaving). */
  self: boolean;
  /** Status 303: the occupant changes nick to this one (with kind "unavailable"). */
  newNick?: string;
  /** Status codes from the MUC user extension (e.g. 110 self, 201 room created, 303 nick change, 307 kicked). */
  statusCodes: string[];
  /** For kind "error": the condition, e.g. "conflict" (nick taken), "not-authorized" (password), "forbidden". */
  error?: string;
}

/** A presence from a room occupant (it carries the MUC user extension, or is a join error); undefined otherwise. */
export function parseOccupantPresence(stanza: Element): OccupantPresence | undefined {
  if (!stanza.is("presence")) return undefined;
  const from = attr(stanza, "from");
  if (from === undefined || !from.includes("/")) return undefined;
  const type = attr(stanza, "type");
  const x = stanza.getChild("x", NS.mucUser);
  if (type === "error") {
    const error = stanza.getChild("error");
    const condition = error?.children.find(
      (child): child is Element =>
        typeof child !== "string" && child.attrs.xmlns === NS.stanzas && child.name !== "text",
    );
    return {
      room: bareJid(from),
      nick: resourceOf(from),
      kind: "error",
      self: true,
      statusCodes: [],
      error: condition?.name ?? "undefined-condition",
    };
  }
  if (x === undefined) return undefined;
  const statusCodes = x.getChildren("status").flatMap((status) => attr(status, "code") ?? []);
  return {
    room: bareJid(from),
    nick: resourceOf(from),
    kind: type === "unavailable" ? "unavailable" : "available",
    self: statusCodes.includes("110"),
    newNick: statusCodes.includes("303") ? attr(x.getChild("item"), "nick") : undefined,
    statusCodes,
  };
}
