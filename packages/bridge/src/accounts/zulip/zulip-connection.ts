// The zulip account's connection. connect() checks the bot's key (GET /users/me), registers an event queue for
// messages, edits and deletes, and long-polls it (event-poller.ts); join() finds each stream and subscribes the bot.
// What was said while the bridge was away is read back through the messages API from the newest message id seen
// (anchor), both after a reconnect (a new queue) and when Zulip says the queue expired (BAD_EVENT_QUEUE_ID), before
// any newer live event is handled, so nothing is lost and nothing relayed twice.
import type { Logger } from "pino";
import type { AccountConfig } from "../../config/types.ts";
import type { Delivery } from "../../core/account.ts";
import {
  type Connection,
  type ConnectionContext,
  type JoinRequest,
  PermanentSendError,
} from "../../core/connection.ts";
import { Events, emptyMessage, PARENT_NOT_FOUND } from "../../message.ts";
import { sendBySteps, showsAllButTyping } from "../delivery-steps.ts";
import { describeFailure } from "../failure-reason.ts";
import { guardedSend } from "../guarded-send.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { OwnPosts } from "../own-posts.ts";
import { ZulipApi } from "./api.ts";
import { bindingKey, parseChannel, type ZulipChannel } from "./channel-name.ts";
import { credentialsFailure, isApiError, SEND_FAILURES } from "./errors.ts";
import { EventPoller, type QueuePosition } from "./event-poller.ts";
import { absoluteUrl, inboundText } from "./inbound.ts";
import type { ZULIP_KEYS } from "./keys.ts";
import { readEvent, readMessage, type ZulipEvent, type ZulipMessage } from "./message-shape.ts";
import { outboundText } from "./outbound.ts";

type Settings = AccountConfig<typeof ZULIP_KEYS>["settings"];

const EVENT_TYPES = ["message", "update_message", "delete_message"];
/** Where a bridge's post goes on a bare-stream channel without a Topic option. */
const DEFAULT_TOPIC = "bridge";
const READ_BACK_PAGE = 100;
const READ_BACK_PAGES = 10;
/** Messages remembered (their stream, topic and author), for edits and deletes and to relay each once. */
const KEPT = 5000;

const idOfSent = (sent: { id?: unknown }): string => (typeof sent.id === "number" ? String(sent.id) : "");

interface Known {
  stream: string;
  topic: string;
  senderId: number;
  senderName: string;
  avatar: string;
}

export class ZulipConnection implements Connection {
  readonly #settings: Settings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  readonly #serverUrl: string;
  #api: ZulipApi | undefined;
  #poller: EventPoller | undefined;
  #me = -1;
  /** Binding key (stream, or stream and topic) -> configured channel. */
  readonly #bindings = new Map<string, ZulipChannel>();
  /** Configured channel -> its binding, once joined. */
  readonly #joined = new Map<string, ZulipChannel>();
  readonly #streamNames = new Map<number, string>();
  /** The newest message id received (live or read back); reading back starts after it. */
  #newest: number | undefined;
  readonly #known = new Map<number, Known>();
  #inbound: Promise<void> = Promise.resolve();
  readonly #malformed: MalformedEvents;
  readonly #own = new OwnPosts();

  constructor(config: AccountConfig<typeof ZULIP_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#context = context;
    this.#logger = context.logger;
    this.#malformed = new MalformedEvents(context.logger);
    this.#serverUrl = config.settings.Server.trim().replace(/\/+$/, "");
  }

  async connect(): Promise<void> {
    const settings = this.#settings;
    const api = new ZulipApi(this.#serverUrl, settings.Login.trim(), settings.Token.trim(), settings.SkipTLSVerify);
    let position: QueuePosition;
    try {
      const me = await api.me();
      this.#me = typeof me.user_id === "number" ? me.user_id : -1;
      position = await this.#register(api);
      this.#logger.info({ user: me.full_name }, `logged in to Zulip at ${this.#serverUrl} as ${String(me.full_name)}`);
    } catch (error) {
      await api.close();
      throw credentialsFailure(error) ?? describeFailure(error, `connecting to ${this.#serverUrl}`);
    }
    this.#api = api;
    const poller = new EventPoller(api);
    this.#poller = poller;
    poller.start(position, {
      events: (events) => this.#onEvents(events),
      queueGone: () => this.#register(api),
      failed: (error) => {
        if (this.#poller === poller) this.#context.disconnected(describeFailure(error, "polling the event queue"));
      },
    });
  }

  async join(request: JoinRequest): Promise<void> {
    const api = this.#liveApi();
    const channel = parseChannel(request.channel);
    if (channel.stream === "") {
      this.#logger.warn({ channel: request.channel }, `${request.channel} names no stream; write "stream/topic:topic"`);
      return;
    }
    let streamId: number;
    try {
      const answer = await api.streamId(channel.stream);
      streamId = Number(answer.stream_id);
      await api.subscribe([channel.stream]);
    } catch (error) {
      if (!isApiError(error) || error.status >= 500 || error.status === 429) throw error;
      this.#logger.warn(
        { channel: request.channel },
        `cannot use stream "${channel.stream}" (${error.message}); create it, or let the bot subscribe to it`,
      );
      return;
    }
    this.#streamNames.set(streamId, channel.stream);
    this.#bindings.set(bindingKey(channel.stream, channel.topic), channel);
    this.#joined.set(request.channel, channel);
  }

  send(delivery: Delivery): Promise<string> {
    return guardedSend(() => this.#send(delivery), this.#context, SEND_FAILURES);
  }

  async disconnect(): Promise<void> {
    this.#poller?.stop();
    this.#poller = undefined;
    const api = this.#api;
    this.#api = undefined;
    await api?.close();
  }

  /**
   * A new event queue; when messages were seen before (a reconnect, an expired queue), the streams' messages after
   * the newest of them are read back first, so they are handled before anything the new queue brings.
   */
  async #register(api: ZulipApi): Promise<QueuePosition> {
    const answer = await api.register({
      event_types: EVENT_TYPES,
      apply_markdown: false,
      client_gravatar: false,
      all_public_streams: false,
    });
    const queueId = typeof answer.queue_id === "string" ? answer.queue_id : "";
    const lastEventId = typeof answer.last_event_id === "number" ? answer.last_event_id : -1;
    if (queueId === "") throw new Error("Zulip's register answer has no queue_id");
    if (this.#newest === undefined) {
      this.#newest = typeof answer.max_message_id === "number" ? answer.max_message_id : 0;
    } else {
      for (const stream of new Set(this.#streamNames.values())) await this.#readBack(api, stream, this.#newest);
    }
    return { queueId, lastEventId };
  }

  async #readBack(api: ZulipApi, stream: string, after: number): Promise<void> {
    let anchor = after;
    for (let page = 0; page < READ_BACK_PAGES; page++) {
      const answer = await api.messagesAfter(stream, anchor, READ_BACK_PAGE);
      const messages = Array.isArray(answer.messages) ? answer.messages : [];
      for (const raw of messages) {
        const message = readMessage(raw);
        if (typeof message === "string") this.#malformed.skip("a Zulip message read back", raw, message);
        else if (message !== undefined) {
          anchor = Math.max(anchor, message.id);
          this.#accept(message);
        }
      }
      if (answer.found_newest === true || messages.length === 0) return;
    }
  }

  #onEvents(events: readonly unknown[]): void {
    for (const raw of events) {
      this.#malformed.guard("a Zulip event", raw, () => {
        const event = readEvent(raw);
        if (typeof event === "string") this.#malformed.skip("a Zulip event", raw, event);
        else this.#onEvent(event);
      });
    }
  }

  #onEvent(event: ZulipEvent): void {
    if (event.type === "message") this.#accept(event.message);
    else if (event.type === "edit") this.#enqueue(() => this.#handleEdit(event));
    else if (event.type === "delete") this.#enqueue(() => this.#handleDelete(event));
  }

  /** A message from the queue or read back; each is handled once, in the order received. */
  #accept(message: ZulipMessage): void {
    if (this.#known.has(message.id)) return;
    this.#remember(message.id, {
      stream: message.stream,
      topic: message.topic,
      senderId: message.senderId,
      senderName: message.senderName || message.senderEmail || String(message.senderId),
      avatar: absoluteUrl(message.avatarUrl, this.#serverUrl),
    });
    this.#newest = Math.max(this.#newest ?? 0, message.id);
    this.#enqueue(() => this.#handleMessage(message));
  }

  #enqueue(work: () => Promise<void>): void {
    this.#inbound = this.#inbound
      .then(work)
      .catch((error: unknown) => this.#malformed.skip("a Zulip event", undefined, error));
  }

  async #handleMessage(message: ZulipMessage): Promise<void> {
    // An echo of a post still being made comes before the answer with its id.
    await this.#own.settled(message.stream.toLowerCase());
    if (this.#isOwn(message.id, message.senderId)) return;
    const channel = this.#channelOf(message.stream, message.topic);
    if (channel === undefined) return;
    const { text, action } = inboundText(message.content, this.#serverUrl);
    if (text.trim() === "") return;
    const known = this.#known.get(message.id);
    this.#context.receive(
      emptyMessage({
        text,
        channel,
        username: known?.senderName ?? String(message.senderId),
        userid: String(message.senderId),
        avatar: known?.avatar ?? "",
        id: String(message.id),
        event: action ? Events.userAction : "",
      }),
    );
  }

  async #handleEdit(event: Extract<ZulipEvent, { type: "edit" }>): Promise<void> {
    if (this.#settings.EditDisable || event.userId === this.#me) return;
    const known = this.#known.get(event.messageId) ?? (await this.#lookUp(event.messageId));
    if (known === undefined || this.#isOwn(event.messageId, known.senderId)) return;
    const channel = this.#channelOf(known.stream, known.topic);
    if (channel === undefined) return;
    const { text, action } = inboundText(event.content, this.#serverUrl);
    this.#context.receive(
      emptyMessage({
        text: `${text}${this.#settings.EditSuffix}`,
        channel,
        username: known.senderName,
        userid: String(known.senderId),
        avatar: known.avatar,
        id: String(event.messageId),
        event: action ? Events.userAction : "",
      }),
    );
  }

  async #handleDelete(event: Extract<ZulipEvent, { type: "delete" }>): Promise<void> {
    for (const id of event.messageIds) {
      const known = this.#known.get(id);
      if (this.#own.has(String(id)) || known?.senderId === this.#me) continue;
      const stream =
        known?.stream ?? (event.streamId === undefined ? undefined : this.#streamNames.get(event.streamId));
      const topic = known?.topic ?? event.topic;
      const channel = stream === undefined || topic === undefined ? undefined : this.#channelOf(stream, topic);
      if (channel !== undefined) {
        this.#context.receive(emptyMessage({ id: String(id), channel, event: Events.msgDelete }));
      }
    }
  }

  /** Where an edited message is, when it came before the bridge started. */
  async #lookUp(id: number): Promise<Known | undefined> {
    const api = this.#api;
    if (api === undefined) return undefined;
    try {
      const message = readMessage((await api.message(String(id))).message);
      if (message === undefined || typeof message === "string") return undefined;
      const known: Known = {
        stream: message.stream,
        topic: message.topic,
        senderId: message.senderId,
        senderName: message.senderName || message.senderEmail || String(message.senderId),
        avatar: absoluteUrl(message.avatarUrl, this.#serverUrl),
      };
      this.#remember(id, known);
      return known;
    } catch {
      return undefined;
    }
  }

  #remember(id: number, known: Known): void {
    this.#known.set(id, known);
    if (this.#known.size > KEPT) this.#known.delete(this.#known.keys().next().value as number);
  }

  #isOwn(id: number, senderId: number): boolean {
    return senderId === this.#me || this.#own.has(String(id));
  }

  /** The configured channel a stream's topic is bridged as: that topic's binding, else the whole stream's. */
  #channelOf(stream: string, topic: string): string | undefined {
    return (this.#bindings.get(bindingKey(stream, topic)) ?? this.#bindings.get(bindingKey(stream, undefined)))?.name;
  }

  async #send(delivery: Delivery): Promise<string> {
    const api = this.#liveApi();
    const channel = this.#joined.get(delivery.channel);
    if (channel === undefined) throw new PermanentSendError(`${delivery.channel} is not a stream the bot is in`);
    return sendBySteps(delivery.message, {
      shows: showsAllButTyping,
      text: () => outboundText(delivery, this.#settings),
      remove: (id) => api.delete(id),
      alreadyGone: (error) => isApiError(error, 400) && /invalid message/i.test(error.message),
      edit: (id, text) => api.edit(id, text),
      post: async (text) => {
        const topic = channel.topic ?? (await this.#topicFor(delivery));
        const sent = this.#own.track(channel.stream.toLowerCase(), api.send(channel.stream, topic, text), idOfSent);
        return idOfSent(await sent);
      },
    });
  }

  /** On a whole-stream channel: a reply goes to its parent's topic, anything else to the Topic option's. */
  async #topicFor(delivery: Delivery): Promise<string> {
    const parent = delivery.message.parent_id;
    if (parent !== "" && parent !== PARENT_NOT_FOUND && /^\d+$/.test(parent)) {
      const known = this.#known.get(Number(parent)) ?? (await this.#lookUp(Number(parent)));
      if (known !== undefined) return known.topic;
    }
    const option = delivery.options.Topic ?? delivery.options.topic;
    return typeof option === "string" && option.trim() !== "" ? option.trim() : DEFAULT_TOPIC;
  }

  #liveApi(): ZulipApi {
    if (this.#api === undefined) throw new Error("not connected");
    return this.#api;
  }
}
