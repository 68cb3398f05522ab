// What a Matrix room shows the bridge, as bridged messages: m.text, m.notice and m.emote (`user_action`) messages,
// edits (`m.replace`: the id of the original and the new text), replies (`m.in_reply_to`: parent_id, the quoted
// fallback lines stripped unless KeepQuotedReply), thread messages (parent_id: the thread root), redactions
// (`msg_delete` of the redacted event) and media (m.image, m.file, m.video, m.audio) as an Extra.file entry whose
// NativeID is the mxc:// URI (the connection fetches it) and whose text is the caption, if any (Matrix 1.10: a
// `filename` beside a `body` that differs). Pure: the connection decides whose event and which room.
import { fileInfo } from "../../core/files/file-info.ts";
import { Events, emptyMessage, type Message } from "../../message.ts";

/** A room event as /sync delivers it. */
export interface RoomEvent {
  type: string;
  event_id: string;
  sender: string;
  content: Record<string, unknown>;
  origin_server_ts?: number;
  state_key?: string;
  redacts?: string;
  unsigned?: Record<string, unknown>;
}

/** Who sent it and where, as the connection resolved it. */
export interface InboundSource {
  channel: string;
  username: string;
  userid: string;
  avatar: string;
}

export interface InboundOptions {
  keepQuotedReply: boolean;
  /** mxc://server/id -> an http(s) link to show for media messages. */
  mediaUrl: (mxc: string) => string;
}

const TEXT_TYPES = new Set(["m.text", "m.notice", "m.emote"]);
const MEDIA_TYPES = new Set(["m.image", "m.file", "m.video", "m.audio"]);

interface Relation {
  rel_type?: unknown;
  event_id?: unknown;
  is_falling_back?: unknown;
  "m.in_reply_to"?: { event_id?: unknown };
}

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** The message to route for this event, or undefined when it is nothing to relay. */
export function inboundMessage(event: RoomEvent, source: InboundSource, options: InboundOptions): Message | undefined {
  const base = { channel: source.channel, username: source.username, userid: source.userid, avatar: source.avatar };
  if (event.type === "m.room.redaction") {
    // Room versions up to 10 put `redacts` at the top level, version 11 in the content.
    const redacts = event.redacts ?? event.content.redacts;
    if (typeof redacts !== "string" || redacts === "") return undefined;
    return emptyMessage({ ...base, event: Events.msgDelete, id: redacts });
  }
  if (event.type !== "m.room.message") return undefined;
  const content = event.content;
  const relation = asObject(content["m.relates_to"]) as Relation | undefined;
  const newContent = asObject(content["m.new_content"]);
  if (relation?.rel_type === "m.replace" && typeof relation.event_id === "string" && newContent !== undefined) {
    const text = messageText(newContent);
    // An edit carries its text only: a media event's new caption, nothing when it has none.
    if (text === undefined || text === "") return undefined;
    return emptyMessage({ ...base, text, event: eventOf(newContent), id: relation.event_id });
  }
  let text = messageText(content);
  if (text === undefined) return undefined;
  const file = mediaFile(content, options);
  if (text === "" && file === undefined) return undefined;
  let parent = "";
  if (relation?.rel_type === "m.thread" && typeof relation.event_id === "string") {
    parent = relation.event_id;
  } else if (typeof relation?.["m.in_reply_to"]?.event_id === "string") {
    parent = relation["m.in_reply_to"].event_id;
    if (!options.keepQuotedReply) text = stripQuotedReply(text);
  }
  const extra = file === undefined ? null : { file: [file] };
  return emptyMessage({ ...base, text, event: eventOf(content), id: event.event_id, parent_id: parent, Extra: extra });
}

/** The file of a media message: named by `filename` (else its body), sized by info.size. */
function mediaFile(content: Record<string, unknown>, options: InboundOptions) {
  const url = content.url;
  if (!MEDIA_TYPES.has(String(content.msgtype)) || typeof url !== "string" || !url.startsWith("mxc://"))
    return undefined;
  const name = typeof content.filename === "string" && content.filename !== "" ? content.filename : content.body;
  const size = asObject(content.info)?.size;
  return fileInfo({
    Name: typeof name === "string" && name !== "" ? name : "file",
    URL: options.mediaUrl(url),
    Size: typeof size === "number" && Number.isSafeInteger(size) && size >= 0 ? size : 0,
    NativeID: url,
  });
}

function eventOf(content: Record<string, unknown>): string {
  return content.msgtype === "m.emote" ? Events.userAction : "";
}

/** The body of a text message, the caption of a media message ("" without one); undefined for anything else. */
function messageText(content: Record<string, unknown>): string | undefined {
  const body = content.body;
  if (typeof body !== "string") return undefined;
  const type = typeof content.msgtype === "string" ? content.msgtype : "";
  if (TEXT_TYPES.has(type)) return body;
  if (MEDIA_TYPES.has(type)) {
    const filename = content.filename;
    return typeof filename === "string" && filename !== "" && filename !== body ? body : "";
  }
  return undefined;
}

/**
 * Replies carry the quoted parent as "> " lines and a blank line before the answer (the spec's fallback); other
 * platforms show the reply as a reply, so the quote would be shown twice. As Matterbridge: leading "> " lines go.
 */
export function stripQuotedReply(text: string): string {
  const lines = text.split("\n");
  let index = 0;
  while (index < lines.length && (lines[index] as string).startsWith(">")) index++;
  if (index === 0) return text;
  if (lines[index] === "") index++;
  return lines.slice(index).join("\n");
}
