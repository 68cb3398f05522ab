// What a Rocket.Chat message means for the bridge: a text (a thread reply names its thread), an action (a message
// wholly in underscores: what Rocket.Chat's /me posts), a join or leave (`uj`, `ul`: Matterbridge relays them), a
// topic change, a delete (`rm`), an edit — or nothing (the bridge's own messages, other system messages). Pure: the
// connection knows which messages are its own.
import { Events } from "../../message.ts";
import { IGNORE, type InboundChange } from "../inbound-change.ts";
import type { RcMessage } from "./message-shape.ts";

function asAction(text: string): { text: string; action: boolean } {
  const match = /^_(?!_)([\s\S]*[^_])_$/.exec(text);
  return match ? { text: match[1] as string, action: true } : { text, action: false };
}

export function interpret(message: RcMessage, serverUrl: string, editDisable: boolean): InboundChange {
  const base = { id: message.id, parentId: message.threadId, userId: message.userId, edited: false };
  switch (message.type) {
    case "":
      break;
    case "rm":
      return { kind: "delete", id: message.id };
    case "uj":
    case "ul": {
      const verb = message.type === "uj" ? "joined" : "left";
      const who = message.username || message.text;
      return { kind: "text", ...base, text: `${who} ${verb} the channel`, event: Events.joinLeave, username: "system" };
    }
    case "room_changed_topic":
      return { kind: "text", ...base, text: message.text, event: Events.topicChange, username: "system" };
    default:
      return IGNORE;
  }
  if (message.edited && editDisable) return IGNORE;
  const files = message.files.map((link) => (/^https?:\/\//i.test(link) ? link : `${serverUrl}${link}`));
  const { text, action } = asAction(message.text);
  const body = [text, ...files].filter((part) => part !== "").join("\n");
  if (body.trim() === "") return IGNORE;
  return {
    kind: "text",
    ...base,
    text: body,
    event: action ? Events.userAction : "",
    username: message.alias || message.username || message.userId,
    edited: message.edited,
  };
}
