// The rocketchat account's connection. connect() logs in over REST (Login/Password → a token) and opens the DDP
// realtime socket, logging in there with that token; join() finds each room by name (joining a public channel) and
// subscribes to its messages and deletions. After a reconnect each room reads back what changed since the newest
// change seen (chat.syncMessages: new, edited and deleted messages) before its live events, so nothing said while
// away is lost and nothing is relayed twice. In the webhook mode (modes.ts) an incoming webhook posts instead of
// the REST API, and/or the calls of an outgoing webhook are read instead of the realtime API.
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
import { relayChange } from "../inbound-change.ts";
import { objectOf, stringOf } from "../json-fields.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { OwnPosts } from "../own-posts.ts";
import { type Json, RocketChatApi } from "./api.ts";
import { DdpClient } from "./ddp.ts";
import { credentialsFailure, isApiError, SEND_FAILURES } from "./errors.ts";
import { interpret } from "./inbound.ts";
import type { ROCKETCHAT_KEYS } from "./keys.ts";
import { type RcMessage, readChange, readMessage } from "./message-shape.ts";
import { modesOf, type RocketChatModes } from "./modes.ts";
import { outboundText, postedAs } from "./outbound.ts";
import type { OutgoingCall } from "./outgoing-payload.ts";
import { OutgoingWebhookListener } from "./outgoing-webhook-listener.ts";
import { serverUrl } from "./server-url.ts";
import { WebhookSender } from "./webhook-sender.ts";

type Settings = AccountConfig<typeof ROCKETCHAT_KEYS>["settings"];

/** Message versions remembered, so one seen live and read back is relayed once. */
const SEEN_KEPT = 2000;

const idOfPosted = (posted: Json): string => stringOf(objectOf(posted.message)?._id) ?? "";

export class RocketChatConnection implements Connection {
  readonly #settings: Settings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  readonly #baseUrl: string;
  readonly #modes: RocketChatModes;
  readonly #listener: OutgoingWebhookListener | undefined;
  readonly #webhook: WebhookSender | undefined;
  #api: RocketChatApi | undefined;
  #ddp: DdpClient | undefined;
  #userId = "";
  /** Configured channel -> room id, and back. */
  readonly #ids = new Map<string, string>();
  readonly #names = new Map<string, string>();
  /** Per room id: the newest change handled (ms), where reading back starts. */
  readonly #lastSeen = new Map<string, number>();
  /** Rooms reading back: their live changes wait here, to come after what is read back. */
  readonly #held = new Map<string, RcMessage[]>();
  readonly #seen = new Set<string>();
  readonly #knownIds = new Set<string>();
  #inbound: Promise<void> = Promise.resolve();
  readonly #malformed: MalformedEvents;
  readonly #own = new OwnPosts();

  constructor(config: AccountConfig<typeof ROCKETCHAT_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#context = context;
    this.#logger = context.logger;
    this.#malformed = new MalformedEvents(context.logger);
    this.#baseUrl =
      config.settings.Server.trim() === "" ? "" : serverUrl(config.settings.Server, config.settings.NoTLS);
    this.#modes = modesOf(config.settings);
    const { WebhookBindAddress, Token, WebhookURL, SkipTLSVerify } = config.settings;
    this.#webhook =
      this.#modes.send === "webhook" ? new WebhookSender(WebhookURL, SkipTLSVerify, config.settings) : undefined;
    this.#listener =
      this.#modes.receive === "webhook"
        ? new OutgoingWebhookListener(context.id, WebhookBindAddress, Token, context.logger)
        : undefined;
  }

  async connect(): Promise<void> {
    this.#webhook?.open();
    if (this.#modes.send === "none") {
      this.#logger.warn("receives only: messages for Rocket.Chat are dropped (set WebhookURL, or Login and Password)");
    }
    if (this.#modes.login) await this.#logIn();
    await this.#listener?.start((call) => this.#onCall(call));
  }

  async #logIn(): Promise<void> {
    const settings = this.#settings;
    const api = new RocketChatApi(this.#baseUrl, settings.SkipTLSVerify);
    let username: string;
    try {
      const login = await api.login(settings.Login.trim(), settings.Password);
      this.#userId = login.userId;
      username = stringOf((await api.me()).username) ?? settings.Login;
    } catch (error) {
      await api.close();
      throw credentialsFailure(error) ?? describeFailure(error, `connecting to ${this.#baseUrl}`);
    }
    this.#api = api;
    if (this.#modes.receive !== "realtime") {
      this.#logger.info({ user: username }, `logged in to Rocket.Chat at ${this.#baseUrl} as ${username} (sending)`);
      return;
    }
    const ddp = new DdpClient(`${this.#baseUrl.replace(/^http/i, "ws")}/websocket`, !settings.SkipTLSVerify);
    this.#ddp = ddp;
    try {
      await ddp.open({
        changed: (collection, fields) =>
          this.#malformed.guard("a Rocket.Chat event", fields, () => this.#onChange(ddp, collection, fields)),
        malformed: (frame, reason) => this.#malformed.skip("a Rocket.Chat realtime frame", frame, reason),
        closed: (reason) => {
          if (this.#ddp === ddp) this.#context.disconnected(new Error(reason));
        },
      });
      await ddp.call("login", [{ resume: api.token }]);
    } catch (error) {
      throw describeFailure(error, "opening the realtime connection");
    }
    this.#logger.info({ user: username }, `logged in to Rocket.Chat at ${this.#baseUrl} as ${username}`);
  }

  async join(request: JoinRequest): Promise<void> {
    // The webhooks name rooms themselves: only the APIs need a room's id.
    if (!this.#modes.login) return;
    const api = this.#liveApi();
    const ddp = this.#ddp;
    const name = request.channel.replace(/^#/, "");
    let roomId: string;
    try {
      const room = objectOf((await api.roomByName(name)).room) ?? {};
      roomId = stringOf(room._id) ?? "";
      if (roomId === "") throw new Error("rooms.info answered no room id");
      if (room.t === "c") await api.joinChannel(roomId);
    } catch (error) {
      if (!isApiError(error) || error.status >= 500 || error.status === 429) throw error;
      this.#logger.warn(
        { channel: request.channel },
        `no room ${request.channel} the bot can use (${error.message}); create it, or add the bot to a private one`,
      );
      return;
    }
    this.#ids.set(request.channel, roomId);
    this.#names.set(roomId, request.channel);
    if (ddp === undefined) return;
    const since = this.#lastSeen.get(roomId);
    if (since !== undefined) this.#held.set(roomId, []);
    try {
      await ddp.subscribe("stream-room-messages", [roomId, false]);
      await ddp.subscribe("stream-notify-room", [`${roomId}/deleteMessage`, false]);
      if (since !== undefined) await this.#readBack(api, roomId, since);
    } finally {
      for (const message of this.#held.get(roomId) ?? []) this.#accept(message);
      this.#held.delete(roomId);
    }
    if (since === undefined) this.#lastSeen.set(roomId, Date.now());
  }

  send(delivery: Delivery): Promise<string> {
    if (this.#modes.send === "none") return Promise.resolve("");
    const webhook = this.#webhook;
    const threadOf = (parentId: string) => this.#threadOf(this.#liveApi(), parentId);
    const send = webhook
      ? () => webhook.send(delivery, this.#api !== undefined ? threadOf : undefined)
      : () => this.#send(delivery);
    return guardedSend(send, this.#context, SEND_FAILURES);
  }

  async disconnect(): Promise<void> {
    await this.#listener?.close();
    await this.#webhook?.close();
    const ddp = this.#ddp;
    this.#ddp = undefined;
    ddp?.close();
    const api = this.#api;
    this.#api = undefined;
    await api?.close();
  }

  #onChange(ddp: DdpClient, collection: string, fields: unknown): void {
    if (this.#ddp !== ddp) return;
    const change = readChange(collection, fields);
    if (typeof change === "string") {
      this.#malformed.skip(`a Rocket.Chat ${collection} event`, fields, change);
      return;
    }
    if (change.kind === "deleted") {
      const channel = this.#names.get(change.roomId);
      if (channel !== undefined && !this.#own.has(change.id)) {
        this.#enqueue(
          async () => void this.#context.receive(emptyMessage({ id: change.id, channel, event: Events.msgDelete })),
        );
      }
      return;
    }
    if (change.kind !== "message") return;
    const held = this.#held.get(change.message.roomId);
    if (held !== undefined) held.push(change.message);
    else this.#accept(change.message);
  }

  /** What changed in a room since `since`, in the order it changed, as the live events would have told it. */
  async #readBack(api: RocketChatApi, roomId: string, since: number): Promise<void> {
    const result = objectOf((await api.changesSince(roomId, new Date(since))).result) ?? {};
    const updated: RcMessage[] = [];
    for (const raw of Array.isArray(result.updated) ? result.updated : []) {
      const message = readMessage(raw);
      if (typeof message === "string") this.#malformed.skip("a Rocket.Chat message read back", raw, message);
      else updated.push(message);
    }
    updated.sort((a, b) => a.updatedAt - b.updatedAt);
    for (const message of updated) this.#accept(message);
    const channel = this.#names.get(roomId) as string;
    for (const raw of Array.isArray(result.deleted) ? result.deleted : []) {
      const id = stringOf(objectOf(raw)?._id);
      if (id && this.#knownIds.has(id) && !this.#own.has(id)) {
        this.#enqueue(async () => void this.#context.receive(emptyMessage({ id, channel, event: Events.msgDelete })));
      }
    }
  }

  /** A message version, live or read back: handled once, in the order received. */
  #accept(message: RcMessage): void {
    const version = `${message.id}:${message.updatedAt}`;
    if (this.#seen.has(version)) return;
    this.#seen.add(version);
    if (this.#seen.size > SEEN_KEPT) this.#seen.delete(this.#seen.values().next().value as string);
    // A known message shown again without an edit (a thread's reply count, a reaction) changes no text.
    const repeat = this.#knownIds.has(message.id) && !message.edited && message.type === "";
    this.#knownIds.add(message.id);
    if (this.#knownIds.size > SEEN_KEPT) this.#knownIds.delete(this.#knownIds.values().next().value as string);
    this.#lastSeen.set(message.roomId, Math.max(this.#lastSeen.get(message.roomId) ?? 0, message.updatedAt));
    if (repeat) return;
    this.#enqueue(() => this.#handle(message));
  }

  #enqueue(work: () => Promise<void>): void {
    this.#inbound = this.#inbound
      .then(work)
      .catch((error: unknown) => this.#malformed.skip("a Rocket.Chat message", undefined, error));
  }

  async #handle(message: RcMessage, called?: { channel: string; siteUrl: string }): Promise<void> {
    const channel = called?.channel ?? this.#names.get(message.roomId);
    if (channel === undefined) return;
    // An echo of a message still being posted comes before the answer with its id.
    await this.#own.settled(message.roomId);
    if (this.#isOwn(message)) return;
    const inbound = interpret(message, this.#baseUrl, this.#settings.EditDisable);
    const server = this.#baseUrl || called?.siteUrl || "";
    const avatar =
      message.avatar ||
      (message.username && server !== "" ? `${server}/avatar/${encodeURIComponent(message.username)}` : "");
    const shown = inbound.kind === "text" && inbound.event !== Events.joinLeave ? avatar : "";
    relayChange(this.#context, inbound, channel, this.#settings.EditSuffix, { avatar: shown });
  }

  /** The bridge's own messages: by the bot user, posted by this account, or by Nick (the incoming webhook's user). */
  #isOwn(message: RcMessage): boolean {
    if (this.#userId !== "" && message.userId === this.#userId) return true;
    const nick = this.#settings.Nick.trim();
    return this.#own.has(message.id) || (nick !== "" && message.username === nick);
  }

  /** A call of the outgoing webhook: relayed when it is from a bridged room (it may be set up for every room). */
  #onCall(call: OutgoingCall): void {
    const channel = this.#context.memberships.find((m) => m.channel.replace(/^#/, "") === call.channelName)?.channel;
    if (channel === undefined) return;
    const { message } = call;
    this.#webhook?.remember(message);
    this.#enqueue(() => this.#handle(message, { channel, siteUrl: call.siteUrl }));
  }

  async #send(delivery: Delivery): Promise<string> {
    const api = this.#liveApi();
    const roomId = this.#ids.get(delivery.channel);
    if (roomId === undefined) throw new PermanentSendError(`${delivery.channel} is not a room the bot is in`);
    return sendBySteps(delivery.message, {
      shows: showsAllButTyping,
      text: () => outboundText(delivery, this.#settings),
      remove: (id) => api.delete(roomId, id),
      alreadyGone: (error) => isApiError(error, 400) && /no message found/i.test(error.message),
      edit: (id, text) => api.update(roomId, id, text),
      post: async (text) => {
        const tmid = await this.#threadOf(api, delivery.message.parent_id);
        const body: Json = { roomId, text, ...postedAs(delivery, this.#settings), ...(tmid ? { tmid } : {}) };
        return idOfPosted(await this.#own.track(roomId, api.postMessage(body), idOfPosted));
      },
    });
  }

  /** Rocket.Chat threads have one root: a reply to a reply goes to that reply's thread. */
  async #threadOf(api: RocketChatApi, parentId: string): Promise<string> {
    if (parentId === "" || parentId === PARENT_NOT_FOUND) return "";
    try {
      const parent = objectOf((await api.message(parentId)).message);
      return stringOf(parent?.tmid) || (stringOf(parent?._id) ?? "");
    } catch (error) {
      // A parent deleted meanwhile must not cost the message: it goes to the room.
      if (isApiError(error) && error.status < 500 && error.status !== 429) return "";
      throw error;
    }
  }

  #liveApi(): RocketChatApi {
    const realtimeDown = this.#modes.receive === "realtime" && this.#ddp === undefined;
    if (this.#api === undefined || realtimeDown) throw new Error("not connected");
    return this.#api;
  }
}
