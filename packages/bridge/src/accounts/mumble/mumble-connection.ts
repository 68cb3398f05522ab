// The `mumble` account's connection: one TLS control channel to a Mumble server per connect attempt (no voice).
// It logs in as Nick, moves into the gateway channel (a Mumble user is in one channel at a time, so an account
// bridges one channel), relays that channel's text messages and joins/leaves, and sends what the gateways route to
// it as escaped HTML, split at the server's message_length. Pings keep the link up (murmurd drops a silent client
// after 30 s); the core supervises reconnects and paces the outbound queue.
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import { asError } from "@switchboard/common";
import type { Logger } from "pino";
import type { AccountConfig } from "../../config/types.ts";
import type { Delivery, SendResult } from "../../core/account.ts";
import {
  AccountFailure,
  type Connection,
  type ConnectionContext,
  type JoinRequest,
  PermanentSendError,
} from "../../core/connection.ts";
import { Events } from "../../message.ts";
import { VERSION } from "../../version.ts";
import { fileLines } from "../file-lines.ts";
import { fitText } from "../fit-text.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { FrameReader } from "./frames.ts";
import { htmlCost, textToHtml } from "./html-text.ts";
import { presenceMessage, textMessage } from "./inbound.ts";
import type { MUMBLE_KEYS } from "./keys.ts";
import {
  authenticateFrame,
  decodeFrame,
  type Inbound,
  pingFrame,
  textMessageFrame,
  userStateFrame,
  versionFrame,
} from "./packets.ts";
import { rejectError } from "./reject.ts";
import { parseServer } from "./server-address.ts";
import { handshakeError, tlsOptions } from "./tls-options.ts";
import { Users } from "./users.ts";

type Settings = AccountConfig<typeof MUMBLE_KEYS>["settings"];

/** Mumble's client pings every 5 s; murmurd drops a client it has not heard from for 30 s. */
const PING_INTERVAL_MS = 10_000;
/** No data from the server for this long (two pings unanswered and more) = a dead link. */
const SILENCE_MS = 35_000;
const JOIN_ANSWER_MS = 10_000;
/** murmurd's default textmessagelength, used until the server's ServerConfig says otherwise. */
const DEFAULT_MESSAGE_LENGTH = 5000;
/** A long message becomes at most this many Mumble messages; the rest is clipped with MessageClipped. */
const MAX_PARTS = 10;
/** `<i></i>` around an action. */
const ACTION_MARKUP = 7;
/** PermissionDenied.DenyType TextTooLong. */
const TEXT_TOO_LONG = 4;

interface Handshake {
  resolve(): void;
  reject(error: Error): void;
}

interface JoinWait {
  channelId: number;
  finish(problem: string | undefined): void;
}

export class MumbleConnection implements Connection {
  readonly #settings: Settings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  readonly #malformed: MalformedEvents;
  readonly #users = new Users();
  readonly #channels = new Set<number>();
  /** Parts of a split delivery already written, so a send retried after a drop does not repeat them. */
  readonly #progress = new WeakMap<Delivery, number>();
  #socket: TLSSocket | undefined;
  #handshake: Handshake | undefined;
  #joinWait: JoinWait | undefined;
  #session: number | undefined;
  /** The channel the bot sits in (after join). */
  #channel: number | undefined;
  #messageLength = DEFAULT_MESSAGE_LENGTH;
  #pinger: NodeJS.Timeout | undefined;
  #lastHeard = 0;

  constructor(config: AccountConfig<typeof MUMBLE_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#context = context;
    this.#logger = context.logger;
    this.#malformed = new MalformedEvents(context.logger);
  }

  async connect(): Promise<void> {
    const server = parseServer(this.#settings.Server);
    if (server === undefined)
      throw new AccountFailure(`Server ${JSON.stringify(this.#settings.Server)} is not host:port`);
    const options = tlsOptions(server.host, server.port, this.#settings);
    this.#reset();
    const socket = tlsConnect(options);
    this.#socket = socket;
    const loggedIn = new Promise<void>((resolve, reject) => {
      this.#handshake = { resolve, reject };
    });
    const reader = new FrameReader();
    socket.on("data", (chunk: Buffer) => {
      if (this.#socket !== socket) return;
      this.#lastHeard = Date.now();
      this.#read(reader, chunk);
    });
    socket.on("error", (error: Error) => this.#lost(socket, handshakeError(error)));
    socket.on("close", () => this.#lost(socket, new Error("the Mumble server closed the connection")));
    socket.once("secureConnect", () => {
      socket.write(versionFrame(`Switchboard bridge ${VERSION}`));
      socket.write(authenticateFrame(this.#settings.Nick, this.#settings.Password ?? ""));
    });
    this.#lastHeard = Date.now();
    this.#pinger = setInterval(() => this.#ping(socket), PING_INTERVAL_MS);
    await loggedIn;
    if (this.#settings.UserComment !== "" && this.#session !== undefined) {
      socket.write(userStateFrame(this.#session, { comment: this.#settings.UserComment }));
    }
  }

  async join(request: JoinRequest): Promise<void> {
    const socket = this.#socket;
    const session = this.#session;
    if (socket === undefined || session === undefined) throw new Error("not connected");
    const channelId = channelIdOf(request.channel);
    const refuse = (reason: string) =>
      this.#logger.warn({ channel: request.channel }, `cannot join ${request.channel}: ${reason}`);
    if (channelId === undefined) return refuse('a Mumble channel is its id, a number such as "1"');
    if (this.#channel !== undefined && this.#channel !== channelId) {
      return refuse(
        `a Mumble user is in one channel at a time and this account is in ${this.#channel}; use another account`,
      );
    }
    if (!this.#channels.has(channelId)) return refuse("the server has no channel with that id");
    if (this.#users.get(session)?.channelId !== channelId) {
      const problem = await new Promise<string | undefined>((resolve) => {
        const timer = setTimeout(() => finish("the server did not answer"), JOIN_ANSWER_MS);
        const finish = (outcome: string | undefined) => {
          clearTimeout(timer);
          if (this.#joinWait === wait) this.#joinWait = undefined;
          resolve(outcome);
        };
        const wait: JoinWait = { channelId, finish };
        this.#joinWait = wait;
        socket.write(userStateFrame(session, { channelId }));
      });
      if (this.#socket !== socket) throw new Error(`disconnected while joining ${request.channel}`);
      if (problem !== undefined) return refuse(problem);
    }
    this.#channel = channelId;
  }

  send(delivery: Delivery): SendResult {
    const message = delivery.message;
    // Mumble has no message ids: nothing to delete, and an edit arrives as a new message.
    if (message.event === Events.msgDelete) return "";
    const socket = this.#socket;
    if (socket === undefined || this.#session === undefined || !socket.writable) throw new Error("not connected");
    const channelId = channelIdOf(delivery.channel);
    if (channelId === undefined || channelId !== this.#channel) {
      throw new PermanentSendError(`not in Mumble channel ${delivery.channel} (joining it failed)`);
    }
    const text = [message.text, ...fileLines(message)].filter((line) => line !== "").join("\n");
    if (text === "") return "";
    const action = message.event === Events.userAction;
    const limit = this.#messageLength > 0 ? this.#messageLength : Number.MAX_SAFE_INTEGER;
    const parts = fitText(
      text,
      { limit: limit - (action ? ACTION_MARKUP : 0), cost: htmlCost },
      { prefix: message.username, maxParts: MAX_PARTS, clipped: this.#settings.MessageClipped },
    ).map((part) => (action ? `<i>${textToHtml(part)}</i>` : textToHtml(part)));
    const start = this.#progress.get(delivery) ?? 0;
    if (parts.length - start === 1) {
      socket.write(textMessageFrame(channelId, parts[start] as string));
      return "";
    }
    return this.#sendParts(socket, delivery, channelId, parts, start);
  }

  /** The queue paced the first part; each further one waits for its own MessageDelay slot. */
  async #sendParts(
    socket: TLSSocket,
    delivery: Delivery,
    channelId: number,
    parts: string[],
    start: number,
  ): Promise<string> {
    for (let index = start; index < parts.length; index++) {
      if (index > start) await this.#context.pace();
      if (this.#socket !== socket || !socket.writable) {
        this.#progress.set(delivery, index);
        throw new Error("disconnected while sending a long message");
      }
      socket.write(textMessageFrame(channelId, parts[index] as string));
    }
    this.#progress.delete(delivery);
    return "";
  }

  async disconnect(): Promise<void> {
    const socket = this.#socket;
    this.#reset();
    if (socket === undefined) return;
    socket.removeAllListeners();
    // A late error on a socket we let go of must not become an uncaught exception.
    socket.on("error", () => {});
    socket.destroy();
  }

  /** Forgets everything of the previous connection (its socket is closed by the caller). */
  #reset(): void {
    clearInterval(this.#pinger);
    this.#pinger = undefined;
    this.#socket = undefined;
    this.#handshake = undefined;
    this.#joinWait?.finish("disconnected");
    this.#session = undefined;
    this.#channel = undefined;
    this.#channels.clear();
    this.#users.clear();
    this.#messageLength = DEFAULT_MESSAGE_LENGTH;
  }

  #ping(socket: TLSSocket): void {
    if (this.#socket !== socket) return;
    if (Date.now() - this.#lastHeard > SILENCE_MS) {
      socket.destroy();
      this.#lost(socket, new Error(`no answer from the Mumble server for ${SILENCE_MS / 1000} s`));
      return;
    }
    if (socket.writable) socket.write(pingFrame(Date.now()));
  }

  /** The socket failed or closed: before login that attempt fails, after it the core is told. */
  #lost(socket: TLSSocket, error: Error): void {
    if (this.#socket !== socket) return;
    const handshake = this.#handshake;
    if (handshake !== undefined) {
      this.#handshake = undefined;
      handshake.reject(error);
      return;
    }
    this.#context.disconnected(error);
  }

  #read(reader: FrameReader, chunk: Buffer): void {
    let frames: ReturnType<FrameReader["push"]>;
    try {
      frames = reader.push(chunk);
    } catch (error) {
      // A frame length we will not buffer: the stream cannot be resynchronised, so the link is dropped.
      const socket = this.#socket;
      socket?.destroy();
      if (socket !== undefined) this.#lost(socket, asError(error));
      return;
    }
    for (const frame of frames) {
      const inbound = decodeFrame(frame);
      if (inbound.kind === "malformed") {
        this.#malformed.skip("a Mumble message", { type: frame.type, bytes: frame.payload.length }, inbound.reason);
        continue;
      }
      this.#malformed.guard("a Mumble message", inbound, () => this.#handle(inbound));
    }
  }

  #handle(inbound: Inbound): void {
    switch (inbound.kind) {
      case "ServerSync":
        this.#session = inbound.session;
        this.#handshake?.resolve();
        this.#handshake = undefined;
        return;
      case "Reject":
        this.#handshake?.reject(rejectError(inbound.type, inbound.reason));
        this.#handshake = undefined;
        return;
      case "ServerConfig":
        if (inbound.messageLength !== undefined) this.#messageLength = inbound.messageLength;
        return;
      case "ChannelState":
        this.#channels.add(inbound.channelId);
        return;
      case "ChannelRemove":
        this.#channels.delete(inbound.channelId);
        if (inbound.channelId === this.#channel) {
          this.#logger.warn({ channel: String(inbound.channelId) }, "the bridged Mumble channel was removed");
          this.#channel = undefined;
        }
        return;
      case "UserState":
        this.#userState(inbound);
        return;
      case "UserRemove":
        this.#userRemove(inbound);
        return;
      case "TextMessage":
        this.#text(inbound);
        return;
      case "PermissionDenied":
        this.#denied(inbound);
        return;
    }
  }

  #userState(state: Extract<Inbound, { kind: "UserState" }>): void {
    const presence = this.#users.update(state.session, state, this.#channel);
    if (state.session === this.#session) {
      const wait = this.#joinWait;
      if (wait !== undefined && state.channelId === wait.channelId) wait.finish(undefined);
      return;
    }
    // The users listed before ServerSync were there already: not news.
    if (presence !== undefined && this.#session !== undefined && this.#channel !== undefined) {
      this.#context.receive(presenceMessage(String(this.#channel), presence));
    }
  }

  #userRemove(remove: Extract<Inbound, { kind: "UserRemove" }>): void {
    if (remove.session === this.#session && this.#socket !== undefined) {
      const why = remove.reason === "" ? "" : `: ${remove.reason}`;
      this.#lost(this.#socket, new Error(`removed from the Mumble server${why}`));
      return;
    }
    const presence = this.#users.remove(remove.session, this.#channel);
    if (presence !== undefined && this.#channel !== undefined) {
      this.#context.receive(presenceMessage(String(this.#channel), presence));
    }
  }

  #text(text: Extract<Inbound, { kind: "TextMessage" }>): void {
    const channel = this.#channel;
    // Private messages to the bot, messages to other channels, and the server's own (no actor) are not relayed;
    // the server never sends our own messages back, but a second bot session with our name would.
    if (channel === undefined || text.actor === undefined || text.actor === this.#session) return;
    if (!text.channelIds.includes(channel)) return;
    const sender = this.#users.get(text.actor)?.name ?? `session ${text.actor}`;
    const message = textMessage(String(channel), sender, text.html);
    if (message !== undefined) this.#context.receive(message);
  }

  #denied(denied: Extract<Inbound, { kind: "PermissionDenied" }>): void {
    const wait = this.#joinWait;
    if (wait !== undefined && (denied.channelId === wait.channelId || denied.session === this.#session)) {
      wait.finish(`the server refused (${denied.reason || `denied, type ${denied.type}`})`);
      return;
    }
    const what = denied.type === TEXT_TOO_LONG ? "a message as too long" : "an action";
    this.#logger.warn(
      { type: denied.type, reason: denied.reason },
      `the Mumble server refused ${what}: ${denied.reason}`,
    );
  }
}

function channelIdOf(channel: string): number | undefined {
  if (!/^\d{1,10}$/.test(channel.trim())) return undefined;
  const id = Number(channel.trim());
  return id <= 0xffffffff ? id : undefined;
}
