// What a Teams message that changed since the channel's last seen time means for the bridge: new (made since), an
// edit (edited since), a delete (soft-deleted) — or nothing (the bridge's own messages, system events, a change that
// is neither, such as a reaction). An action is a text in single asterisks or underscores (what the bridge sends for
// one shows in italics). Pure: the poller knows the time and who the bridge is.
import { Events } from "../../message.ts";
import { IGNORE, type InboundChange } from "../inbound-change.ts";
import { bridgeId } from "./graph.ts";
import type { TeamsMessage } from "./message-shape.ts";

export interface InterpretOptions {
  /** The signed-in user the bridge posts as. */
  ownUserId: string;
  editDisable: boolean;
  /** Whether the account made the message with this bridge id. */
  postedByUs(id: string): boolean;
}

function asAction(text: string): { text: string; action: boolean } {
  const match = /^([*_])(?![*_])([\s\S]*[^*_])\1$/.exec(text);
  return match ? { text: match[2] as string, action: true } : { text, action: false };
}

/** `since`: the channel's last seen time; `known`: the message was seen before, so it is not new. */
export function interpret(
  message: TeamsMessage,
  since: number,
  known: boolean,
  options: InterpretOptions,
): InboundChange {
  const id = bridgeId({ root: message.replyToId ?? message.id, ...(message.replyToId ? { reply: message.id } : {}) });
  if (message.fromUserId === options.ownUserId || options.postedByUs(id)) return IGNORE;
  if (message.messageType !== "message") return IGNORE;
  if (message.deleted) return { kind: "delete", id };
  const isNew = !known && message.created >= since;
  const edited = !isNew && message.edited !== undefined && message.edited >= since;
  if (!isNew && (!edited || options.editDisable)) return IGNORE;
  const { text, action } = asAction(message.text);
  const body = [text, ...message.files].filter((part) => part.trim() !== "").join("\n");
  if (body === "") return IGNORE;
  return {
    kind: "text",
    id,
    parentId: message.replyToId ?? "",
    text: body,
    event: action ? Events.userAction : "",
    userId: message.fromUserId,
    username: message.fromName || message.fromUserId,
    edited,
  };
}
