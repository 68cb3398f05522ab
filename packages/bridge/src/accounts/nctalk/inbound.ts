// What a Talk chat message means for the bridge: a text (a reply names its parent; an action is a text in single
// asterisks, what the bridge sends for one), an edit or a delete (Talk announces them with the system messages
// `message_edited` and `message_deleted`, whose parent is the message changed) — or nothing (the bridge's own
// messages, other system messages, commands). Rich object placeholders are filled as Matterbridge does: a mention
// becomes `@name`, a shared file its link. Pure: the connection knows who the bridge is.
import { Events } from "../../message.ts";
import { IGNORE, type InboundChange } from "../inbound-change.ts";
import type { RichObject, TalkMessage } from "./message-shape.ts";

export interface InterpretOptions {
  /** The Nextcloud user the bridge signs in as. */
  ownUserId: string;
  guestSuffix: string;
  editDisable: boolean;
  /** Whether the account made the message with this id. */
  postedByUs(id: string): boolean;
}

const MENTION_TYPES = new Set(["user", "guest", "group", "call", "user-group", "circle", "team", "email"]);

function render(parameter: RichObject): string {
  if (parameter.type === "file") return parameter.link || parameter.name;
  return MENTION_TYPES.has(parameter.type) ? `@${parameter.name}` : parameter.name;
}

/** The message's text with its {placeholders} filled in. */
function richText(message: TalkMessage): string {
  if (!message.message.includes("{")) return message.message;
  return message.message.replace(/\{([A-Za-z0-9_-]+)\}/g, (whole, name: string) => {
    const parameter = Object.hasOwn(message.parameters, name) ? message.parameters[name] : undefined;
    return parameter === undefined ? whole : render(parameter);
  });
}

function asAction(text: string): { text: string; action: boolean } {
  const match = /^\*(?!\*)([\s\S]*[^*])\*$/.exec(text);
  return match ? { text: match[1] as string, action: true } : { text, action: false };
}

const isOwn = (message: TalkMessage, options: InterpretOptions) =>
  (message.actorType === "users" && message.actorId === options.ownUserId) || options.postedByUs(String(message.id));

function displayName(message: TalkMessage, guestSuffix: string): string {
  const name = message.actorDisplayName.trim() || message.actorId;
  return message.actorType === "guests" ? `${name}${guestSuffix}` : name;
}

function textOf(message: TalkMessage, options: InterpretOptions, edited: boolean): InboundChange {
  const { text, action } = asAction(richText(message));
  if (text.trim() === "") return IGNORE;
  return {
    kind: "text",
    id: String(message.id),
    parentId: message.parent === undefined ? "" : String(message.parent.id),
    text,
    event: action ? Events.userAction : "",
    userId: message.actorId,
    username: displayName(message, options.guestSuffix),
    edited,
  };
}

export function interpret(message: TalkMessage, options: InterpretOptions): InboundChange {
  const target = message.parent;
  if (message.systemMessage === "message_deleted") {
    if (target === undefined || isOwn(target, options)) return IGNORE;
    return { kind: "delete", id: String(target.id) };
  }
  if (message.systemMessage === "message_edited") {
    if (target === undefined || options.editDisable || isOwn(target, options)) return IGNORE;
    if (target.messageType !== "comment") return IGNORE;
    return textOf(target, options, true);
  }
  if (message.systemMessage !== "" || message.messageType !== "comment" || isOwn(message, options)) return IGNORE;
  return textOf(message, options, false);
}
