// The state of one simulated Microsoft 365 tenant as Microsoft Graph shows Teams (learn.microsoft.com, "chatMessage
// resource type"): users, one team, its channels (ids `19:…@thread.skype`) holding root messages and their replies.
// A message's id is the millisecond time it was made (as Teams' are), unique in the tenant; times are ISO strings
// with milliseconds; a soft-deleted message keeps its place with `deletedDateTime` set and an empty body.
import { randomUUID } from "node:crypto";

export interface GraphUser {
  id: string;
  displayName: string;
  userPrincipalName: string;
}

export interface ChatMessage {
  "@odata.type"?: string;
  id: string;
  replyToId: string | null;
  etag: string;
  messageType: "message" | "systemEventMessage";
  createdDateTime: string;
  lastModifiedDateTime: string;
  lastEditedDateTime: string | null;
  deletedDateTime: string | null;
  subject: string | null;
  summary: string | null;
  chatId: null;
  importance: "normal";
  locale: "en-us";
  webUrl: string;
  from: { application: null; device: null; user: GraphUser & { userIdentityType: "aadUser" } } | null;
  body: { contentType: "text" | "html"; content: string };
  channelIdentity: { teamId: string; channelId: string };
  attachments: Record<string, unknown>[];
  mentions: Record<string, unknown>[];
  reactions: Record<string, unknown>[];
  eventDetail?: Record<string, unknown> | null;
}

export interface Channel {
  id: string;
  displayName: string;
  /** Root messages, oldest first; each root's replies by its id. */
  roots: ChatMessage[];
  replies: Map<string, ChatMessage[]>;
}

export class TeamsWorld {
  readonly users = new Map<string, GraphUser>();
  readonly team = { id: randomUUID(), displayName: "Switchboard" };
  readonly channels = new Map<string, Channel>();
  #lastMs = 0;

  addUser(displayName: string): GraphUser {
    const user = {
      id: randomUUID(),
      displayName,
      userPrincipalName: `${displayName.toLowerCase().replace(/\W+/g, ".")}@contoso.example`,
    };
    this.users.set(user.id, user);
    return user;
  }

  addChannel(displayName: string): Channel {
    const hex = randomUUID().replaceAll("-", "");
    const channel = { id: `19:${hex}@thread.skype`, displayName, roots: [], replies: new Map() };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** Milliseconds, strictly increasing: ids and "since" comparisons never tie. */
  nowMs(): number {
    this.#lastMs = Math.max(Date.now(), this.#lastMs + 1);
    return this.#lastMs;
  }

  /** A root (replyToId null) or a reply, stored and returned. */
  post(channel: Channel, user: GraphUser, body: ChatMessage["body"], replyToId: string | null): ChatMessage {
    const ms = this.nowMs();
    const at = new Date(ms).toISOString();
    const message: ChatMessage = {
      id: String(ms),
      replyToId,
      etag: String(ms),
      messageType: "message",
      createdDateTime: at,
      lastModifiedDateTime: at,
      lastEditedDateTime: null,
      deletedDateTime: null,
      subject: null,
      summary: null,
      chatId: null,
      importance: "normal",
      locale: "en-us",
      webUrl: `https://teams.microsoft.com/l/message/${encodeURIComponent(channel.id)}/${ms}`,
      from: { application: null, device: null, user: { ...user, userIdentityType: "aadUser" } },
      body,
      channelIdentity: { teamId: this.team.id, channelId: channel.id },
      attachments: [],
      mentions: [],
      reactions: [],
    };
    if (replyToId === null) {
      channel.roots.push(message);
      channel.replies.set(message.id, []);
    } else {
      channel.replies.get(replyToId)?.push(message);
    }
    return message;
  }

  find(channel: Channel, id: string, replyToId?: string): ChatMessage | undefined {
    if (replyToId === undefined) return channel.roots.find((m) => m.id === id);
    return channel.replies.get(replyToId)?.find((m) => m.id === id);
  }

  edit(message: ChatMessage, body: ChatMessage["body"]): void {
    const at = new Date(this.nowMs()).toISOString();
    Object.assign(message, { body, lastModifiedDateTime: at, lastEditedDateTime: at, etag: String(Date.parse(at)) });
  }

  softDelete(message: ChatMessage): void {
    const at = new Date(this.nowMs()).toISOString();
    Object.assign(message, {
      body: { contentType: "html", content: "" },
      deletedDateTime: at,
      lastModifiedDateTime: at,
    });
  }

  /** The newest change in a thread (the root or any reply): threads are listed newest activity first. */
  activity(channel: Channel, root: ChatMessage): string {
    let newest = root.lastModifiedDateTime;
    for (const reply of channel.replies.get(root.id) ?? []) {
      if (reply.lastModifiedDateTime > newest) newest = reply.lastModifiedDateTime;
    }
    return newest;
  }
}
