// Rocket.Chat's integrations as the simulator serves them (docs.rocket.chat "Integrations"). An incoming webhook is
// `POST /hooks/<id>/<token>` with JSON {text, alias, avatar, emoji, channel, tmid}: posted as its "Post as" user
// (with `bot: {i: <id>}`) in its channel or the one named, answered {success: true} without the message. An outgoing
// webhook ("Message Sent") POSTs JSON {token, bot, channel_id, channel_name, message_id, timestamp, user_id,
// user_name, text, siteUrl, alias, tmid, isEdited} to its URL for each message in its room (edits too with "run on
// edits"), and what the URL answered is kept.
import { Inbox } from "../inbox.ts";
import { failure, MAX_MESSAGE_SIZE, ok, type RestAnswer } from "./rest.ts";
import type { RcMessage, RcRoom, RcUser, RocketChatWorld } from "./world.ts";

export interface IncomingWebhookSetup {
  /** The "Post as" user. */
  postAs: RcUser;
  /** The default room (by name, without "#"). */
  channel: string;
}

export interface OutgoingWebhookSetup {
  /** Where Rocket.Chat calls. */
  url: string;
  token: string;
  /** The room (by name) whose messages are sent; every room when absent. */
  channel?: string;
  /** Whether edits are sent too (Rocket.Chat's "Run on edits"); default true. */
  runOnEdits?: boolean;
}

/** One call of an outgoing webhook and what its URL answered (status 0: no answer). */
export interface OutgoingWebhookCall {
  payload: Record<string, unknown>;
  status: number;
  body: string;
}

interface Outgoing extends OutgoingWebhookSetup {
  calls: Inbox<OutgoingWebhookCall>;
  /** Calls go one at a time, in the order the messages were saved. */
  queue: Promise<void>;
}

interface Incoming extends IncomingWebhookSetup {
  id: string;
  token: string;
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

export class RocketChatWebhooks {
  readonly #world: RocketChatWorld;
  readonly #incoming = new Map<string, Incoming>();
  readonly #outgoing: Outgoing[] = [];
  #siteUrl = "";

  constructor(world: RocketChatWorld) {
    this.#world = world;
  }

  set siteUrl(url: string) {
    this.#siteUrl = url;
  }

  /** Creates an incoming webhook; returns its path (`/hooks/<id>/<token>`). */
  addIncoming(setup: IncomingWebhookSetup): string {
    const hook: Incoming = { ...setup, id: this.#world.newId(), token: `${this.#world.newId()}${this.#world.newId()}` };
    this.#incoming.set(hook.id, hook);
    return `/hooks/${hook.id}/${hook.token}`;
  }

  addOutgoing(setup: OutgoingWebhookSetup): Inbox<OutgoingWebhookCall> {
    const calls = new Inbox<OutgoingWebhookCall>();
    this.#outgoing.push({ ...setup, calls, queue: Promise.resolve() });
    return calls;
  }

  /** An incoming webhook's call; `post` makes the message (and tells whoever listens). */
  incoming(path: string, input: Record<string, unknown>, post: (room: RcRoom, message: RcMessage) => void): RestAnswer {
    const [, , id = "", token = ""] = path.split("/");
    const hook = this.#incoming.get(id);
    if (hook === undefined || hook.token !== token) {
      return { status: 404, body: { success: false, error: "Invalid integration id or token provided." } };
    }
    const target = text(input.channel) || text(input.roomId) || `#${hook.channel}`;
    const room = target.startsWith("#")
      ? this.#world.roomByName(target.slice(1))
      : (this.#world.rooms.get(target) ?? undefined);
    if (room === undefined) return failure("invalid-channel", "invalid-channel");
    const msg = text(input.text);
    if (msg === "") return failure("unknown-error", "");
    if (msg.length > MAX_MESSAGE_SIZE) return failure("Message size exceeds the allowed limit", "");
    const tmid = text(input.tmid);
    if (tmid !== "" && this.#world.message(tmid)?.room !== room)
      return failure("Invalid thread", "error-invalid-message");
    const fields: Partial<RcMessage> = { msg, bot: { i: hook.id } };
    for (const key of ["alias", "avatar", "emoji"] as const)
      if (text(input[key]) !== "") fields[key] = text(input[key]);
    if (tmid !== "") fields.tmid = tmid;
    post(room, this.#world.newMessage(room, hook.postAs, fields));
    return ok();
  }

  /** Calls the outgoing webhooks of the message's room, in the background. */
  messageSaved(message: RcMessage): void {
    if (message.t !== undefined) return;
    const room = this.#world.rooms.get(message.rid);
    if (room === undefined) return;
    for (const hook of this.#outgoing) {
      if (hook.channel !== undefined && hook.channel !== room.name) continue;
      if (message.editedAt !== undefined && hook.runOnEdits === false) continue;
      const payload = this.#payload(hook.token, room, message);
      hook.queue = hook.queue.then(() => call(hook, payload));
    }
  }

  #payload(token: string, room: RcRoom, message: RcMessage): Record<string, unknown> {
    return {
      token,
      bot: message.bot ?? false,
      channel_id: room._id,
      channel_name: room.name,
      message_id: message._id,
      timestamp: message.ts.toISOString(),
      user_id: message.u._id,
      user_name: message.u.username,
      text: message.msg,
      siteUrl: this.#siteUrl,
      ...(message.alias ? { alias: message.alias } : {}),
      ...(message.tmid ? { tmid: message.tmid } : {}),
      ...(message.editedAt ? { isEdited: true } : {}),
    };
  }
}

async function call(hook: Outgoing, payload: Record<string, unknown>): Promise<void> {
  try {
    const response = await fetch(hook.url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(10_000),
    });
    hook.calls.push({ payload, status: response.status, body: await response.text() });
  } catch {
    hook.calls.push({ payload, status: 0, body: "" });
  }
}
