// The state of one simulated Nextcloud server with Talk: users (each with an app password), conversations ("rooms",
// named by their token) with participants and their chat, in the shapes Talk's chat API returns
// (nextcloud-talk.readthedocs.io, "Chat API": the message array with id, token, actorType, actorId,
// actorDisplayName, timestamp in seconds, message with {placeholders}, messageParameters, systemMessage,
// messageType, parent). Message ids are one increasing integer per server, as Talk's comment ids are.

export interface RichObject {
  type: string;
  id: string;
  name: string;
  link?: string;
  [field: string]: unknown;
}

export interface TalkMessage {
  id: number;
  token: string;
  actorType: string;
  actorId: string;
  actorDisplayName: string;
  timestamp: number;
  message: string;
  /** PHP writes an empty parameter map as [] */
  messageParameters: Record<string, RichObject> | [];
  systemMessage: string;
  messageType: "comment" | "comment_deleted" | "system" | "command";
  isReplyable: boolean;
  referenceId: string;
  reactions: Record<string, number> | [];
  expirationTimestamp: number;
  markdown: boolean;
  parent?: TalkMessage;
  lastEditActorId?: string;
  lastEditTimestamp?: number;
}

/** A message as the server keeps it: the parent by id, attached only when shown. */
export interface StoredMessage extends Omit<TalkMessage, "parent"> {
  parentId?: number;
  /** A fault: shown as exactly this instead. */
  raw?: Record<string, unknown>;
}

export interface TalkUser {
  id: string;
  displayName: string;
  appPassword: string;
}

export interface Room {
  token: string;
  name: string;
  participants: Set<string>;
  /** Guests by their session id -> display name. */
  guests: Map<string, string>;
  messages: StoredMessage[];
}

const TOKEN_CHARS = "abcdefghijkmnpqrstuvwxyz23456789";

export class TalkWorld {
  readonly users = new Map<string, TalkUser>();
  readonly rooms = new Map<string, Room>();
  /** Told of every message appended (long polls wait on it). */
  readonly appendListeners = new Set<(room: Room) => void>();
  #nextId = 0;
  #tokens = 0;

  addUser(id: string, displayName: string, appPassword: string): TalkUser {
    const user = { id, displayName, appPassword };
    this.users.set(id, user);
    return user;
  }

  /** A group conversation; its token is 8 characters, as Talk makes them. */
  addRoom(name: string, participants: string[]): Room {
    let n = ++this.#tokens * 2_654_435_761;
    let token = "";
    for (let i = 0; i < 8; i++) {
      token += TOKEN_CHARS[n % TOKEN_CHARS.length];
      n = Math.floor(n / TOKEN_CHARS.length) + i * 7919;
    }
    const room: Room = { token, name, participants: new Set(participants), guests: new Map(), messages: [] };
    this.rooms.set(token, room);
    return room;
  }

  message(room: Room, id: number): StoredMessage | undefined {
    return room.messages.find((message) => message.id === id);
  }

  /** Appends a message to the room's chat, as the server stores it. */
  append(room: Room, fields: Partial<StoredMessage> & Pick<StoredMessage, "actorType" | "actorId">): StoredMessage {
    const message: StoredMessage = {
      id: ++this.#nextId,
      token: room.token,
      actorDisplayName: "",
      timestamp: Math.floor(Date.now() / 1000),
      message: "",
      messageParameters: [],
      systemMessage: "",
      messageType: "comment",
      isReplyable: true,
      referenceId: "",
      reactions: [],
      expirationTimestamp: 0,
      markdown: true,
      ...fields,
    };
    room.messages.push(message);
    for (const listener of this.appendListeners) listener(room);
    return message;
  }

  /** A message as the API shows it: its parent (one level: never the parent's parent) attached. */
  shown(room: Room, message: StoredMessage): TalkMessage {
    if (message.raw !== undefined) return structuredClone(message.raw) as unknown as TalkMessage;
    const { parentId, raw: _raw, ...fields } = structuredClone(message);
    const parent = parentId === undefined ? undefined : this.message(room, parentId);
    if (parent === undefined) return fields;
    const { parentId: _grandparent, raw: _parentRaw, ...parentFields } = structuredClone(parent);
    return { ...fields, parent: parentFields };
  }
}
