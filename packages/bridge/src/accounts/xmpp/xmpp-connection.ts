// The `xmpp` account's connection: one @xmpp/client session that joins each gateway channel as the MUC room
// <channel>@<Muc>, relays the rooms' live groupchat messages and sends what the gateways route to it. The core
// supervises it (reconnects and rejoins after a reported drop) and feeds it through its outbound queues, so the
// library's own reconnect is switched off and nothing here retries. Files go through the server's HTTP File Upload
// service (http-uploads.ts); files people share arrive as out-of-band URLs (incoming-files.ts).
import { randomUUID } from "node:crypto";
import { asError } from "@switchboard/common";
import { type Client, client } from "@xmpp/client";
import xml, { type Element } from "@xmpp/xml";
import type { Logger } from "pino";
import type { AccountConfig } from "../../config/types.ts";
import type { Delivery } from "../../core/account.ts";
import {
  AccountFailure,
  type Connection,
  type ConnectionContext,
  type JoinRequest,
  PermanentSendError,
} from "../../core/connection.ts";
import type { FileRequest } from "../../core/files/download.ts";
import type { FileInfo } from "../../core/files/file-info.ts";
import { Events, emptyMessage, type Message } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { fitText } from "../fit-text.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { RefusedUploads } from "../upload-fallback.ts";
import { isOwnEcho, SentIds } from "./echo.ts";
import { FileDeliveries } from "./file-delivery.ts";
import { HistoryReplay } from "./history.ts";
import { HttpUploads } from "./http-uploads.ts";
import {
  type IncomingGroupchat,
  meAction,
  type OccupantPresence,
  parseGroupchat,
  parseOccupantPresence,
} from "./incoming.ts";
import { isServerFile, type ServerHosts, sharedFiles } from "./incoming-files.ts";
import { keepAlive } from "./keep-alive.ts";
import type { XMPP_KEYS } from "./keys.ts";
import { chooseMechanism, loginIdentity, parseServer, type XmppSettings } from "./login.ts";
import { groupchatMessage, mucJoinPresence, mucLeavePresence, xmlTextCost } from "./outgoing.ts";
import { RoomJoins } from "./room-joins.ts";
import { controlStartTls } from "./starttls.ts";

const JOIN_TIMEOUT_MS = 20_000;
/** A taken nick is retried with "_" appended, this many times. */
const NICK_ATTEMPTS = 5;
const PING_INTERVAL_MS = 60_000;
const PING_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;
/** The wait for each answer about the upload service (discovery, a slot). */
const UPLOAD_IQ_TIMEOUT_MS = 15_000;
/** SASL failures that another attempt with the same settings cannot fix. */
const FATAL_SASL = new Set([
  "not-authorized",
  "account-disabled",
  "credentials-expired",
  "encryption-required",
  "invalid-mechanism",
  "mechanism-too-weak",
]);

interface JoinedRoom {
  /** The gateway channel, as configured (the room's JID may differ in case). */
  channel: string;
  /** Our occupant nick there (Nick, or Nick with "_" appended when it was taken). */
  nick: string;
}

export class XmppConnection implements Connection {
  readonly #settings: XmppSettings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  readonly #malformed: MalformedEvents;
  readonly #muc: string;
  #client: Client | undefined;
  /** Increments on every connect and disconnect: events of an older client are ignored. */
  #session = 0;
  /** Set when the login must not be retried (no STARTTLS, SASL refused, no usable mechanism). */
  #loginRefused: Error | undefined;
  #stopKeepAlive: (() => void) | undefined;
  /** Rooms we are in, by lower-cased bare JID (servers normalise the JIDs they send). */
  readonly #rooms = new Map<string, JoinedRoom>();
  readonly #joins = new RoomJoins();
  readonly #replay = new HistoryReplay();
  readonly #sent = new SentIds();
  readonly #refusedUploads: RefusedUploads;
  /** This connection's upload service (discovered on its first file). */
  #uploads: HttpUploads | undefined;
  readonly #files = new FileDeliveries({
    body: (message, lines) => this.#body(message, lines),
    newId: () => this.#newId(),
    pace: () => this.#context.pace(),
  });
  readonly #fileHosts: ServerHosts;

  constructor(config: AccountConfig<typeof XMPP_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#context = context;
    this.#logger = context.logger;
    this.#muc = config.settings.Muc.trim();
    this.#malformed = new MalformedEvents(context.logger);
    this.#refusedUploads = new RefusedUploads(context.logger);
    const server = parseServer(config.settings.Server);
    this.#fileHosts = { domain: loginIdentity(config.settings).domain, serverHost: server?.host ?? "" };
  }

  async connect(): Promise<void> {
    const settings = this.#settings;
    const server = parseServer(settings.Server);
    if (server === undefined) throw new AccountFailure(`Server ${JSON.stringify(settings.Server)} is not host:port`);
    const { username, domain } = loginIdentity(settings);
    const session = ++this.#session;
    const userAgentId = randomUUID();
    this.#loginRefused = undefined;
    const refuse = (error: Error) => {
      this.#loginRefused ??= error;
      xmpp.emit("error", error);
    };
    const xmpp = client({
      service: `xmpp://${server.host.includes(":") ? `[${server.host}]` : server.host}:${server.port}`,
      domain,
      credentials: async (authenticate, mechanisms) => {
        const mechanism = chooseMechanism(mechanisms, {
          secure: xmpp.isSecure(),
          noTls: settings.NoTLS,
          anonymous: settings.Anonymous,
        });
        if (mechanism === undefined) {
          const error = new Error(
            `no usable login mechanism among ${mechanisms.join(", ")}` +
              (settings.Anonymous ? " (Anonymous needs ANONYMOUS)" : " (PLAIN is not used on an unencrypted stream)"),
          );
          refuse(error);
          throw error;
        }
        const credentials = mechanism === "ANONYMOUS" ? {} : { username, password: settings.Password ?? "" };
        // SASL2 servers (XEP-0388) also want a user agent; plain SASL ignores it.
        await authenticate(credentials, mechanism, xml("user-agent", { id: userAgentId }));
      },
    });
    // The core reconnects (with backoff, and rejoins); the library must not do it behind its back.
    xmpp.reconnect.stop();
    controlStartTls(xmpp, { noTls: settings.NoTLS, skipVerify: settings.SkipTLSVerify, domain, fail: refuse });
    this.#client = xmpp;

    const current = () => session === this.#session;
    let online = false;
    const dropped = (reason: string) => {
      if (!current() || !online) return;
      online = false;
      this.#context.disconnected(reason);
    };
    xmpp.on("error", (error: Error) => {
      if (current()) this.#logger.debug({ err: error }, "xmpp client error");
    });
    xmpp.on("stanza", (stanza: Element) => {
      // A stanza the account cannot handle is skipped with a log line; it must not end the process.
      if (current()) this.#malformed.guard("an XMPP stanza", stanza, () => this.#onStanza(stanza));
    });
    // A drop before "online" fails start() below; after it, it is the core's to handle.
    const closedEarly = new Promise<never>((_, reject) => {
      xmpp.once("disconnect", () => reject(new Error("the server closed the connection during login")));
    });
    closedEarly.catch(() => {});
    try {
      await Promise.race([xmpp.start(), closedEarly]);
    } catch (error) {
      throw this.#loginError(error);
    }
    online = true;
    this.#uploads = new HttpUploads({
      domain: xmpp.jid?.domain ?? domain,
      get: (to, payload) => xmpp.iqCaller.request(xml("iq", { type: "get", to }, payload), UPLOAD_IQ_TIMEOUT_MS),
      alive: () => current() && online,
      logger: this.#logger,
      refused: this.#refusedUploads,
    });
    xmpp.on("close", () => dropped("the server closed the stream"));
    xmpp.on("disconnect", (details?: { reason?: unknown }) =>
      dropped(details?.reason instanceof Error ? details.reason.message : "connection closed"),
    );
    // Initial presence: some servers hold back groupchat traffic from an unavailable resource.
    await xmpp.send(xml("presence"));
    this.#stopKeepAlive = keepAlive(xmpp, {
      intervalMs: PING_INTERVAL_MS,
      timeoutMs: PING_TIMEOUT_MS,
      dead: (reason) => {
        dropped(reason);
        destroySocket(xmpp.socket);
      },
    });
    this.#logger.info(
      { jid: xmpp.jid?.toString(), server: settings.Server, tls: xmpp.isSecure() },
      `${this.#context.id} logged in`,
    );
  }

  #loginError(error: unknown): Error {
    const refused = this.#loginRefused;
    if (refused !== undefined) return new AccountFailure(refused.message);
    if (error instanceof Error && error.name === "SASLError") {
      const condition = (error as Error & { condition?: string }).condition ?? error.message;
      const text = `login refused by the server (${condition})`;
      if (FATAL_SASL.has(condition) || condition.startsWith("SASL:")) {
        return new AccountFailure(this.#settings.Anonymous ? text : `${text}: check Jid and Password`);
      }
      return new Error(text);
    }
    return asError(error);
  }

  async join(request: JoinRequest): Promise<void> {
    const xmpp = this.#client;
    if (xmpp === undefined) throw new Error("not connected");
    const room = `${request.channel}@${this.#muc}`;
    const key = request.options.key;
    const password = typeof key === "string" && key !== "" ? key : undefined;
    let nick = this.#settings.Nick;
    for (let attempt = 1; attempt <= NICK_ATTEMPTS; attempt++) {
      const answer = this.#joins.expect(room.toLowerCase(), JOIN_TIMEOUT_MS);
      // Until the room's subject arrives, what it sends is history: never relayed.
      this.#replay.joining(room.toLowerCase());
      await xmpp.send(mucJoinPresence({ room, nick, password }));
      const presence = await answer;
      if (presence.kind !== "error") {
        this.#rooms.set(room.toLowerCase(), { channel: request.channel, nick: presence.nick });
        this.#logger.info({ room, nick: presence.nick }, `joined ${room}`);
        return;
      }
      this.#replay.forget(room.toLowerCase());
      if (presence.error !== "conflict") {
        // Retrying the whole connection would not change the room's mind; the other rooms still work.
        this.#logger.error({ room, reason: presence.error }, `cannot join ${room}: ${presence.error}`);
        return;
      }
      this.#logger.warn({ room, nick }, `nick ${nick} is taken in ${room}; trying ${nick}_`);
      nick = `${nick}_`;
    }
    this.#logger.error({ room }, `cannot join ${room}: every nick tried is taken`);
  }

  send(delivery: Delivery): Promise<string> | string {
    const xmpp = this.#client;
    if (xmpp === undefined || xmpp.status !== "online") throw new Error("not connected");
    const message = delivery.message;
    // XMPP has retractions (XEP-0424) but Matterbridge sends no deletes to XMPP; neither do we yet.
    if (message.event === Events.msgDelete) return "";
    const uploads = delivery.uploads ?? [];
    const links = fileLines(message);
    if (message.text === "" && links.length === 0 && uploads.length === 0) return "";
    const room = `${delivery.channel}@${this.#muc}`;
    if (!this.#rooms.has(room.toLowerCase())) throw new PermanentSendError(`not in ${room} (joining it failed)`);
    if (uploads.length > 0) {
      const uploader = this.#uploads;
      if (uploader === undefined) throw new Error("not connected");
      return this.#files.send(xmpp, uploader, room, delivery, links);
    }
    const text = this.#body(
      message,
      [message.text, ...links].filter((line) => line !== ""),
    );
    const id = this.#newId();
    // A non-empty id is the id of our copy of the original: this is an edit, sent as a XEP-0308 correction.
    const replaceId = message.id === "" ? undefined : message.id;
    return xmpp.send(groupchatMessage({ room, text, id, replaceId })).then(() => id);
  }

  /**
   * The body of a text message: the formatted username, then the lines. As Matterbridge, an action becomes
   * "/me <username><text>". A stanza over the server's limit closes the whole session: clipped to MessageLength.
   */
  #body(message: Message, lines: readonly string[]): string {
    const prefix = message.event === Events.userAction ? `/me ${message.username}` : message.username;
    const limit = { limit: this.#settings.MessageLength, cost: xmlTextCost };
    const fitted = fitText(lines.join("\n"), limit, { prefix, clipped: this.#settings.MessageClipped })[0] ?? "";
    return lines.length === 0 ? fitted.trimEnd() : fitted;
  }

  /** A new stanza id, remembered as ours: the room's reflection of the stanza is not relayed. */
  #newId(): string {
    const id = randomUUID();
    this.#sent.add(id);
    return id;
  }

  /** A file someone shared in a room: fetched (with no credentials) only from the XMPP server's own hosts. */
  fileRequest(file: FileInfo): FileRequest | undefined {
    return isServerFile(file.URL, this.#fileHosts) ? { url: file.URL } : undefined;
  }

  #onStanza(stanza: Element): void {
    const presence = parseOccupantPresence(stanza);
    if (presence !== undefined) {
      if (!this.#joins.answer(presence)) this.#onPresence(presence);
      return;
    }
    const groupchat = parseGroupchat(stanza);
    if (groupchat !== undefined) this.#onGroupchat(groupchat);
  }

  /** We left a room we were in without asking (kicked, banned, room destroyed): a reconnect rejoins it. */
  #onPresence(presence: OccupantPresence): void {
    const room = presence.room;
    const joined = this.#rooms.get(room.toLowerCase());
    if (joined === undefined || !presence.self || presence.kind !== "unavailable") return;
    if (presence.newNick !== undefined) {
      joined.nick = presence.newNick;
      return;
    }
    if (presence.nick !== joined.nick) return;
    this.#rooms.delete(room.toLowerCase());
    this.#context.disconnected(`removed from ${room}`);
  }

  #onGroupchat(incoming: IncomingGroupchat): void {
    const key = incoming.room.toLowerCase();
    if (this.#replay.isReplay({ ...incoming, room: key })) return;
    const joined = this.#rooms.get(key);
    if (joined === undefined) return;
    if (isOwnEcho(incoming, joined.nick, this.#sent)) return;
    const message = emptyMessage({
      channel: joined.channel,
      // A message from the room itself has no occupant nick: the room's address names it, never an empty nick.
      username: incoming.nick || incoming.room,
      userid: `${incoming.room}/${incoming.nick}`,
    });
    if (incoming.subject !== undefined) {
      // A live subject change (the one that ends a join's replay was skipped above).
      message.event = Events.topicChange;
      message.text = incoming.subject;
    } else {
      const shared = sharedFiles(incoming.text, incoming.oob);
      const { text, action } = meAction(shared.text);
      message.text = text;
      if (action) message.event = Events.userAction;
      if (shared.files.length > 0) message.Extra = { file: shared.files };
      // A correction (XEP-0308) names the original's id: the core then treats it as an edit of that message.
      message.id = incoming.replaceId ?? incoming.id ?? incoming.originId ?? "";
    }
    if (message.text === "" && message.Extra === null && message.event !== Events.topicChange) return;
    this.#context.receive(message);
  }

  async disconnect(): Promise<void> {
    this.#session++;
    this.#stopKeepAlive?.();
    this.#stopKeepAlive = undefined;
    this.#joins.abandon("disconnecting");
    this.#replay.forget();
    this.#uploads?.close();
    this.#uploads = undefined;
    const rooms = [...this.#rooms.entries()];
    this.#rooms.clear();
    const xmpp = this.#client;
    this.#client = undefined;
    if (xmpp === undefined) return;
    xmpp.on("error", () => {});
    const socket = xmpp.socket;
    try {
      if (xmpp.status === "online") {
        for (const [room, joined] of rooms) await xmpp.send(mucLeavePresence(room, joined.nick));
      }
      await Promise.race([xmpp.stop(), new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS).unref())]);
    } catch (error) {
      this.#logger.debug({ err: error }, "xmpp stop failed");
    } finally {
      // Whatever state the stream was in (a dead link never answers a stream close), the socket is freed.
      destroySocket(socket);
    }
  }
}

function destroySocket(socket: unknown): void {
  (socket as { destroy?(): void } | null)?.destroy?.();
}
