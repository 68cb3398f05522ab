// A Talk chat message read from JSON the server sent, without trusting its shape: the fields the account uses, each
// checked for its type, or a reason why it cannot be read. Talk writes an empty parameter map as [] (PHP).
import { integerOf, type JsonObject, objectOf, stringOf } from "../json-fields.ts";

export interface RichObject {
  type: string;
  name: string;
  link: string;
}

export interface TalkMessage {
  id: number;
  actorType: string;
  actorId: string;
  actorDisplayName: string;
  message: string;
  parameters: Record<string, RichObject>;
  systemMessage: string;
  messageType: string;
  /** The message this one replies to, or that an edit/delete notice is about. */
  parent: TalkMessage | undefined;
}

function readParameters(value: unknown): Record<string, RichObject> {
  const map = objectOf(value);
  const parameters: Record<string, RichObject> = {};
  if (map === undefined) return parameters;
  for (const [name, raw] of Object.entries(map)) {
    const object = objectOf(raw);
    if (object === undefined) continue;
    parameters[name] = {
      type: stringOf(object.type) ?? "",
      name: stringOf(object.name) ?? "",
      link: stringOf(object.link) ?? "",
    };
  }
  return parameters;
}

/** The message, or a text saying why it is not one. `depth` stops at the parent (Talk nests one level). */
export function readTalkMessage(value: unknown, depth = 0): TalkMessage | string {
  const raw: JsonObject | undefined = objectOf(value);
  if (raw === undefined) return "a message is not an object";
  const id = integerOf(raw.id);
  if (id === undefined || id <= 0) return "a message has no numeric id";
  const actorType = stringOf(raw.actorType);
  const actorId = stringOf(raw.actorId);
  if (actorType === undefined || actorId === undefined) return `message ${id} has no actor`;
  const message = stringOf(raw.message);
  if (message === undefined) return `message ${id} has no text`;
  let parent: TalkMessage | undefined;
  if (depth === 0 && raw.parent !== undefined && raw.parent !== null) {
    const read = readTalkMessage(raw.parent, depth + 1);
    // A deleted parent is only {id, deleted: true}: its id is all a reply or a notice needs.
    const parentId = integerOf(objectOf(raw.parent)?.id);
    if (typeof read !== "string") parent = read;
    else if (parentId !== undefined && parentId > 0) parent = bareMessage(parentId);
  }
  return {
    id,
    actorType,
    actorId,
    actorDisplayName: stringOf(raw.actorDisplayName) ?? "",
    message,
    parameters: readParameters(raw.messageParameters),
    systemMessage: stringOf(raw.systemMessage) ?? "",
    messageType: stringOf(raw.messageType) ?? "comment",
    parent,
  };
}

function bareMessage(id: number): TalkMessage {
  const fields = { actorType: "", actorId: "", actorDisplayName: "", message: "", systemMessage: "" };
  return { id, ...fields, parameters: {}, messageType: "comment_deleted", parent: undefined };
}
