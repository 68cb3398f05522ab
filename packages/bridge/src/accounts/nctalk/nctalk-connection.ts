// The nctalk account's connection: Talk's OCS chat API (ocs-client.ts). connect() checks the app password and learns
// the account's user id (GET /cloud/user); join() finds where the conversation's chat stands (its newest message, on
// the first join) and starts its long poll (room-poller.ts). A failed poll is a reported disconnect; the core
// reconnects with backoff, and each poll resumes from the last message it handled, so what was said while away
// arrives afterwards, once.
import type { Logger } from "pino";
import type { AccountConfig } from "../../config/types.ts";
import type { Delivery } from "../../core/account.ts";
import {
  type Connection,
  type ConnectionContext,
  type JoinRequest,
  PermanentSendError,
} from "../../core/connection.ts";
import { Events, PARENT_NOT_FOUND } from "../../message.ts";
import { sendBySteps } from "../delivery-steps.ts";
import { describeFailure } from "../failure-reason.ts";
import { guardedSend } from "../guarded-send.ts";
import { relayChange } from "../inbound-change.ts";
import { arrayOf, integerOf, objectOf, stringOf } from "../json-fields.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { OwnPosts } from "../own-posts.ts";
import { CURRENT_USER, chatPath, messagePath, newestQuery } from "./chat-paths.ts";
import { credentialsFailure, credentialsRevoked, isOcsError, SEND_FAILURES } from "./errors.ts";
import { interpret } from "./inbound.ts";
import type { NCTALK_KEYS } from "./keys.ts";
import { readTalkMessage } from "./message-shape.ts";
import { type OcsAnswer, OcsClient } from "./ocs-client.ts";
import { outboundText } from "./outbound.ts";
import { RoomPoller } from "./room-poller.ts";
import { serverUrl } from "./server-url.ts";

type Settings = AccountConfig<typeof NCTALK_KEYS>["settings"];

/** The events Talk can show: plain messages, actions and deletes (as Matterbridge's nctalk bridge sends). */
const SENT_EVENTS = new Set<string>(["", Events.userAction, Events.msgDelete]);

const idOfPosted = (posted: OcsAnswer): string => String(integerOf(objectOf(posted.data)?.id) ?? "");

export class NctalkConnection implements Connection {
  readonly #settings: Settings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  readonly #baseUrl: string;
  #client: OcsClient | undefined;
  #stop = new AbortController();
  #userId = "";
  /** Per conversation token: its poll, kept across reconnects (its offset is where reading resumes). */
  readonly #pollers = new Map<string, RoomPoller>();
  readonly #joined = new Set<string>();
  readonly #malformed: MalformedEvents;
  readonly #own = new OwnPosts();

  constructor(config: AccountConfig<typeof NCTALK_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#context = context;
    this.#logger = context.logger;
    this.#malformed = new MalformedEvents(context.logger);
    this.#baseUrl = serverUrl(config.settings.Server);
  }

  async connect(): Promise<void> {
    const settings = this.#settings;
    const client = new OcsClient(this.#baseUrl, settings.Login, settings.Password, settings.SkipTLSVerify);
    this.#stop = new AbortController();
    try {
      const me = objectOf((await client.call("GET", CURRENT_USER)).data);
      const id = stringOf(me?.id);
      if (id === undefined || id === "") throw new Error("Nextcloud's answer for the current user has no id");
      this.#userId = id;
      this.#logger.info({ user: id }, `signed in to Nextcloud Talk at ${this.#baseUrl} as ${id}`);
    } catch (error) {
      await client.close();
      throw credentialsFailure(error) ?? describeFailure(error, `connecting to ${this.#baseUrl}`);
    }
    this.#client = client;
    this.#joined.clear();
  }

  async join(request: JoinRequest): Promise<void> {
    const client = this.#liveClient();
    const token = request.channel.trim();
    let poller = this.#pollers.get(token);
    if (poller === undefined) {
      let newest = 0;
      try {
        const answer = await client.call("GET", newestQuery(token), { signal: this.#stop.signal });
        for (const entry of arrayOf(answer.data) ?? []) newest = Math.max(newest, integerOf(objectOf(entry)?.id) ?? 0);
      } catch (error) {
        if (!isOcsError(error) || error.status >= 500 || error.status === 429 || error.status === 401) throw error;
        this.#logger.warn(
          { channel: request.channel },
          `no conversation ${token} for ${this.#settings.Login} (${error.message}); the channel is the conversation's token (the last part of its URL), and Login must be a participant`,
        );
        return;
      }
      poller = new RoomPoller(token, newest);
      this.#pollers.set(token, poller);
    }
    this.#joined.add(token);
    this.#startPolling(client, poller);
  }

  send(delivery: Delivery): Promise<string> {
    return guardedSend(() => this.#send(delivery), this.#context, SEND_FAILURES);
  }

  async disconnect(): Promise<void> {
    this.#stop.abort();
    const client = this.#client;
    this.#client = undefined;
    this.#joined.clear();
    await client?.close();
  }

  #startPolling(client: OcsClient, poller: RoomPoller): void {
    const signal = this.#stop.signal;
    void poller.run(client, signal, {
      message: (raw) => this.#malformed.guardAsync("a Talk message", raw, () => this.#handle(poller.token, raw)),
      unreadable: (answer, reason) => this.#malformed.skip("a Talk poll answer", answer, reason),
      failed: (error) => {
        if (signal.aborted) return;
        const revoked = credentialsRevoked(error);
        if (revoked !== undefined) this.#context.failed(new Error(revoked));
        else this.#context.disconnected(describeFailure(error, `polling conversation ${poller.token}`));
      },
    });
  }

  async #handle(token: string, raw: unknown): Promise<void> {
    const message = readTalkMessage(raw);
    if (typeof message === "string") {
      this.#malformed.skip("a Talk message", raw, message);
      return;
    }
    // An echo of a message still being sent comes before the answer with its id.
    await this.#own.settled(token);
    const inbound = interpret(message, {
      ownUserId: this.#userId,
      guestSuffix: this.#settings.GuestSuffix,
      editDisable: this.#settings.EditDisable,
      postedByUs: (id) => this.#own.has(id),
    });
    relayChange(this.#context, inbound, token, this.#settings.EditSuffix);
  }

  async #send(delivery: Delivery): Promise<string> {
    const client = this.#liveClient();
    const token = delivery.channel.trim();
    if (!this.#joined.has(token)) throw new PermanentSendError(`${token} is not a conversation the account is in`);
    const message = delivery.message;
    return sendBySteps(message, {
      shows: (event) => SENT_EVENTS.has(event),
      text: () => outboundText(delivery, this.#settings),
      remove: (id) => client.call("DELETE", messagePath(token, id)),
      alreadyGone: (error) => isOcsError(error, 404),
      edit: (id, text) => client.call("PUT", messagePath(token, id), { body: { message: text } }),
      post: async (text) => {
        const body: Record<string, unknown> = { message: text };
        const parent = Number(message.parent_id);
        if (message.parent_id !== PARENT_NOT_FOUND && Number.isSafeInteger(parent) && parent > 0) body.replyTo = parent;
        const nick = message.username.trim();
        if (this.#settings.SeparateDisplayName && nick !== "") body.actorDisplayName = nick;
        return idOfPosted(await this.#own.track(token, client.call("POST", chatPath(token), { body }), idOfPosted));
      },
    });
  }

  #liveClient(): OcsClient {
    if (this.#client === undefined) throw new Error("not connected");
    return this.#client;
  }
}
