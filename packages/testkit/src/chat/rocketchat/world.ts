// The state of one simulated Rocket.Chat server: users with passwords, roles and login tokens, rooms (public
// channels "c" and private groups "p") with members and messages, in the shapes Rocket.Chat's REST API returns
// (developer.rocket.chat: IMessage with `_id`, `rid`, `msg`, `u`, `ts`, `_updatedAt`, `alias`, `avatar`, `tmid`,
// `editedAt`, system messages with `t`). Ids are 17 characters, as Meteor's are; times are Date objects here and
// are written as ISO strings over REST and as {$date} over DDP.

export interface RcUser {
  _id: string;
  username: string;
  name: string;
  roles: string[];
}

export interface RcMessage {
  _id: string;
  rid: string;
  msg: string;
  ts: Date;
  _updatedAt: Date;
  u: { _id: string; username: string; name: string };
  alias?: string;
  avatar?: string;
  emoji?: string;
  /** Set on messages an integration posted (an incoming webhook). */
  bot?: { i: string };
  tmid?: string;
  t?: string;
  editedAt?: Date;
  editedBy?: { _id: string; username: string };
  groupable?: boolean;
}

export interface RcRoom {
  _id: string;
  name: string;
  t: "c" | "p";
  members: Set<string>;
  messages: RcMessage[];
  /** Deleted message ids with when (chat.syncMessages reports them). */
  deleted: { _id: string; _deletedAt: Date }[];
}

const ID_CHARS = "23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz";

export class RocketChatWorld {
  readonly users = new Map<string, RcUser>();
  readonly passwords = new Map<string, string>();
  /** Login token -> user id. */
  readonly tokens = new Map<string, string>();
  readonly rooms = new Map<string, RcRoom>();
  #counter = 0;
  #lastTime = 0;

  newId(): string {
    let n = ++this.#counter * 2_654_435_761;
    let id = "";
    for (let i = 0; i < 17; i++) {
      n = (n * 1_103_515_245 + 12_345 + i) % 2_147_483_648;
      id += ID_CHARS[n % ID_CHARS.length];
    }
    return id;
  }

  /** Strictly increasing times, so "since" queries see every change. */
  now(): Date {
    this.#lastTime = Math.max(Date.now(), this.#lastTime + 1);
    return new Date(this.#lastTime);
  }

  addUser(username: string, password: string, roles: string[]): RcUser {
    const user: RcUser = { _id: this.newId(), username, name: username, roles };
    this.users.set(user._id, user);
    this.passwords.set(user._id, password);
    return user;
  }

  newToken(userId: string): string {
    const token = `${this.newId()}${this.newId()}`;
    this.tokens.set(token, userId);
    return token;
  }

  addRoom(name: string, type: "c" | "p", members: string[]): RcRoom {
    const room: RcRoom = { _id: this.newId(), name, t: type, members: new Set(members), messages: [], deleted: [] };
    this.rooms.set(room._id, room);
    return room;
  }

  roomByName(name: string): RcRoom | undefined {
    return [...this.rooms.values()].find((room) => room.name === name);
  }

  message(id: string): { message: RcMessage; room: RcRoom } | undefined {
    for (const room of this.rooms.values()) {
      const message = room.messages.find((candidate) => candidate._id === id);
      if (message) return { message, room };
    }
    return undefined;
  }

  newMessage(room: RcRoom, user: RcUser, fields: Partial<RcMessage>): RcMessage {
    const at = this.now();
    const message: RcMessage = {
      _id: this.newId(),
      rid: room._id,
      msg: "",
      ts: at,
      _updatedAt: at,
      u: { _id: user._id, username: user.username, name: user.name },
      groupable: false,
      ...fields,
    };
    room.messages.push(message);
    return message;
  }

  roomObject(room: RcRoom): Record<string, unknown> {
    return {
      _id: room._id,
      name: room.name,
      fname: room.name,
      t: room.t,
      usersCount: room.members.size,
      msgs: room.messages.length,
    };
  }
}

/** A message as JSON over REST (ISO dates) or DDP (EJSON {$date}). */
export function messageJson(message: RcMessage, dates: "iso" | "ejson"): Record<string, unknown> {
  const date = (value: Date) => (dates === "iso" ? value.toISOString() : { $date: value.getTime() });
  const json: Record<string, unknown> = {
    ...structuredClone(message),
    ts: date(message.ts),
    _updatedAt: date(message._updatedAt),
  };
  if (message.editedAt) json.editedAt = date(message.editedAt);
  return json;
}
