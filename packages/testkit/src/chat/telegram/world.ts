// The simulated platform's state: users and bots, chats with their members and message history, and each bot's
// update queue. The rules are the platform's: message ids count up per chat, a bot never receives updates about
// its own messages or those of other bots, forum topics are threads whose id is the id of the service message that
// created them, and a topic message without an explicit reply "replies" to that service message.
import { FileStore } from "./files.ts";
import type { MessageEntity } from "./formatting.ts";

export interface User {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
}

export type ChatType = "group" | "supergroup" | "channel";

export interface Chat {
  id: number;
  type: ChatType;
  title: string;
  username?: string;
  is_forum?: boolean;
}

export interface StoredMessage {
  message_id: number;
  chat: Chat;
  from?: User;
  sender_chat?: Chat;
  date: number;
  edit_date?: number;
  text?: string;
  entities?: MessageEntity[];
  message_thread_id?: number;
  is_topic_message?: boolean;
  reply_to?: number;
  /** Service content (new_chat_members, left_chat_member, forum_topic_created...). */
  service?: Record<string, unknown>;
  caption?: string;
  /** photo or document, as the Bot API shows them. */
  media?: Record<string, unknown>;
  /** The file of a photo or document message. */
  file?: { id: string; name: string; size: number };
  deleted: boolean;
}

export type UpdateKind = "message" | "edited_message" | "channel_post" | "edited_channel_post";

export interface Update {
  update_id: number;
  [kind: string]: unknown;
}

export class ChatState {
  readonly members = new Map<number, User>();
  readonly messages = new Map<number, StoredMessage>();
  /** Forum topics: thread id -> name. */
  readonly topics = new Map<number, string>();
  #nextId = 1;

  constructor(readonly chat: Chat) {}

  nextMessageId(): number {
    return this.#nextId++;
  }

  /** "group chat", "supergroup chat", "channel chat": the wording of the platform's 403s. */
  get kind(): string {
    return `${this.chat.type} chat`;
  }
}

export class BotState {
  readonly updates: Update[] = [];
  nextUpdateId = 1;
  webhookUrl = "";
  allowedUpdates: string[] | undefined;
  /** The getUpdates request being held, if any: answering it ends the long poll. */
  poll: { answer(updates: Update[] | Error): void } | undefined;
  /** What a test injected in place of an update (a fault): sent as is, confirmed by the offset like any update. */
  readonly #injected = new WeakMap<Update, unknown>();

  constructor(
    readonly user: User,
    readonly token: string,
  ) {}

  push(kind: string, payload: unknown): void {
    if (this.allowedUpdates !== undefined && this.allowedUpdates.length > 0 && !this.allowedUpdates.includes(kind)) {
      return;
    }
    this.#queue({ update_id: this.nextUpdateId++, [kind]: payload });
  }

  /** Queues whatever `make` returns for the next update id, unchecked (null, a number text, a missing chat...). */
  pushRaw(make: (updateId: number) => unknown): void {
    const update: Update = { update_id: this.nextUpdateId++ };
    this.#injected.set(update, make(update.update_id));
    this.#queue(update);
  }

  /** The updates as getUpdates shows them: injected ones as the test made them. */
  render(updates: Update[]): unknown[] {
    return updates.map((update) => (this.#injected.has(update) ? this.#injected.get(update) : update));
  }

  #queue(update: Update): void {
    this.updates.push(update);
    const poll = this.poll;
    if (poll !== undefined) {
      this.poll = undefined;
      poll.answer(this.updates.slice(0, 100));
    }
  }
}

const now = () => Math.floor(Date.now() / 1000);

export class World {
  readonly users = new Map<number, User>();
  readonly bots = new Map<string, BotState>();
  readonly chats = new Map<number, ChatState>();
  readonly files = new FileStore();
  #nextUserId = 1_000_001;
  #nextBotId = 7_000_000_001;
  #nextGroupId = 1;

  addUser(fields: Omit<User, "id" | "is_bot">): User {
    const user: User = { id: this.#nextUserId++, is_bot: false, ...fields };
    this.users.set(user.id, user);
    return user;
  }

  addBot(fields: { username: string; first_name?: string }): BotState {
    const id = this.#nextBotId++;
    const user: User = {
      id,
      is_bot: true,
      first_name: fields.first_name ?? fields.username,
      username: fields.username,
    };
    // Real tokens are "<bot id>:<35 characters>".
    const secret = Buffer.from(`${fields.username}-${id}-simulated-secret`).toString("base64url").slice(0, 35);
    const bot = new BotState(user, `${id}:${secret.padEnd(35, "A")}`);
    this.bots.set(bot.token, bot);
    this.users.set(id, user);
    return bot;
  }

  addChat(fields: { title: string; type?: ChatType; forum?: boolean; username?: string }): ChatState {
    const type = fields.type ?? "supergroup";
    const n = this.#nextGroupId++;
    // Supergroup and channel ids are -100 followed by the peer id; basic groups are small negative numbers.
    const id = type === "group" ? -(4_000_000_000 + n) : -(1_000_000_000_000 + 2_000_000_000 + n);
    const chat: Chat = {
      id,
      type,
      title: fields.title,
      ...(fields.username ? { username: fields.username } : {}),
      ...(fields.forum ? { is_forum: true } : {}),
    };
    const state = new ChatState(chat);
    this.chats.set(id, state);
    return state;
  }

  chatByUsername(username: string): ChatState | undefined {
    const name = username.replace(/^@/, "").toLowerCase();
    return [...this.chats.values()].find((c) => c.chat.username?.toLowerCase() === name);
  }

  /** Stores a new message and tells every bot in the chat that should hear of it. */
  post(chat: ChatState, fields: Omit<StoredMessage, "message_id" | "chat" | "date" | "deleted">): StoredMessage {
    const message: StoredMessage = { message_id: chat.nextMessageId(), chat: chat.chat, date: now(), deleted: false };
    Object.assign(message, fields);
    chat.messages.set(message.message_id, message);
    this.#publish(chat, message, chat.chat.type === "channel" ? "channel_post" : "message");
    return message;
  }

  edit(chat: ChatState, message: StoredMessage, text: string, entities: MessageEntity[]): StoredMessage {
    message.text = text;
    if (entities.length > 0) message.entities = entities;
    else delete message.entities;
    message.edit_date = now();
    this.#publish(chat, message, chat.chat.type === "channel" ? "edited_channel_post" : "edited_message");
    return message;
  }

  /** Deleting tells no bot anything: the Bot API has no update for deleted group messages. */
  delete(message: StoredMessage): void {
    message.deleted = true;
  }

  #publish(chat: ChatState, message: StoredMessage, kind: UpdateKind): void {
    // Bots never hear about messages sent by bots, their own included.
    if (message.from?.is_bot) return;
    for (const member of chat.members.values()) {
      if (!member.is_bot) continue;
      const bot = [...this.bots.values()].find((b) => b.user.id === member.id);
      bot?.push(kind, this.toJson(chat, message));
    }
  }

  /** A Message object as the Bot API shows it. A reply's parent is shown one level deep. */
  toJson(chat: ChatState, message: StoredMessage, depth = 0): Record<string, unknown> {
    const parent = message.reply_to === undefined ? undefined : chat.messages.get(message.reply_to);
    return {
      message_id: message.message_id,
      ...(message.message_thread_id === undefined ? {} : { message_thread_id: message.message_thread_id }),
      ...(message.from ? { from: message.from } : {}),
      ...(message.sender_chat ? { sender_chat: message.sender_chat } : {}),
      chat: message.chat,
      date: message.date,
      ...(message.edit_date === undefined ? {} : { edit_date: message.edit_date }),
      ...(parent !== undefined && depth === 0 ? { reply_to_message: this.toJson(chat, parent, 1) } : {}),
      ...(message.is_topic_message ? { is_topic_message: true } : {}),
      ...(message.text === undefined ? {} : { text: message.text }),
      ...(message.caption === undefined ? {} : { caption: message.caption }),
      ...(message.media ?? {}),
      ...(message.entities?.length ? { entities: message.entities } : {}),
      ...(message.service ?? {}),
    };
  }
}
