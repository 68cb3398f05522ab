// The state of one simulated Zulip server (organization): users with API keys, streams with subscribers, and stream
// messages, in the object shapes Zulip's REST API returns (zulip.com/api: "Get own user", "Get messages"). Message ids
// grow across the whole server, as Zulip's do; times are Unix seconds.

export interface ZulipUser {
  user_id: number;
  email: string;
  full_name: string;
  api_key: string;
  is_bot: boolean;
  avatar_url: string | null;
}

export interface ZulipMessage {
  id: number;
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  avatar_url: string | null;
  content: string;
  content_type: "text/x-markdown";
  display_recipient: string;
  stream_id: number;
  subject: string;
  timestamp: number;
  type: "stream";
  client: string;
  is_me_message: boolean;
  last_edit_timestamp?: number;
  reactions: unknown[];
  flags: string[];
}

export interface ZulipStream {
  stream_id: number;
  name: string;
  subscribers: Set<number>;
}

export class ZulipWorld {
  readonly users = new Map<number, ZulipUser>();
  readonly streams = new Map<number, ZulipStream>();
  /** Every message not deleted, by id. */
  readonly messages = new Map<number, ZulipMessage>();
  #nextUser = 8;
  #nextStream = 10;
  #nextMessage = 100;

  addUser(email: string, fullName: string, isBot: boolean): ZulipUser {
    const id = this.#nextUser++;
    const user: ZulipUser = {
      user_id: id,
      email,
      full_name: fullName,
      api_key: `key${id}${Math.random().toString(36).slice(2, 12)}`,
      is_bot: isBot,
      avatar_url: `https://secure.gravatar.com/avatar/${id}?d=identicon`,
    };
    this.users.set(id, user);
    return user;
  }

  userByEmail(email: string): ZulipUser | undefined {
    return [...this.users.values()].find((user) => user.email.toLowerCase() === email.toLowerCase());
  }

  addStream(name: string, subscribers: number[]): ZulipStream {
    const stream: ZulipStream = { stream_id: this.#nextStream++, name, subscribers: new Set(subscribers) };
    this.streams.set(stream.stream_id, stream);
    return stream;
  }

  streamByName(name: string): ZulipStream | undefined {
    return [...this.streams.values()].find((stream) => stream.name.toLowerCase() === name.toLowerCase());
  }

  newMessage(stream: ZulipStream, sender: ZulipUser, topic: string, content: string): ZulipMessage {
    const message: ZulipMessage = {
      id: this.#nextMessage++,
      sender_id: sender.user_id,
      sender_email: sender.email,
      sender_full_name: sender.full_name,
      avatar_url: sender.avatar_url,
      content,
      content_type: "text/x-markdown",
      display_recipient: stream.name,
      stream_id: stream.stream_id,
      subject: topic,
      timestamp: Math.floor(Date.now() / 1000),
      type: "stream",
      client: "website",
      is_me_message: content.startsWith("/me "),
      reactions: [],
      flags: [],
    };
    this.messages.set(message.id, message);
    return message;
  }
}
