// The matrix account's connection, on matrix-js-sdk. One connect = authenticate (the access token from Token, or a
// password login kept for later connects), one /sync to catch up, then a /sync long poll until the link fails: then
// the core is told (`disconnected`) and reconnects, and the sync resumes from the last position, so what the rooms
// said meanwhile is relayed and nothing twice. The first sync of the process only learns the rooms and their members:
// history is never relayed. The core joins each room (by alias or id) after every connect.
//
// The sync loop is ours, not the library's startClient(): the library's own loop retries forever on its own timers
// (the core supervises here) and leaves a 110 s timer behind every long poll, which keeps a stopping process alive.
// Sends go through the library with no client-side queue, so a 429 reaches the core's queue (RetryAfter) as is.
// Files: media events arrive as Extra.file entries fetched by their mxc:// URI (fileRequest: the authenticated
// download with the access token where the homeserver speaks Matrix 1.11, else the legacy one); uploads follow the
// text, one m.image / m.file event each (uploads.ts).
import { asError, thrownMessage } from "@switchboard/common";
import {
  createClient,
  EventType,
  HTTPError,
  type MatrixClient,
  MatrixError,
  MatrixScheduler,
  Method,
} from "matrix-js-sdk";
import type { Logger } from "pino";
import type { AccountConfig } from "../../config/types.ts";
import type { Delivery, SendResult } from "../../core/account.ts";
import {
  AccountFailure,
  type Connection,
  type ConnectionContext,
  type JoinRequest,
  PermanentSendError,
  RetryAfter,
} from "../../core/connection.ts";
import type { FileRequest } from "../../core/files/download.ts";
import type { FileInfo } from "../../core/files/file-info.ts";
import type { LocalFile } from "../../core/files/local-file.ts";
import { PARENT_NOT_FOUND } from "../../message.ts";
import { VERSION } from "../../version.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { RefusedUploads, refusedFileMessage, uploadUnlessRefused } from "../upload-fallback.ts";
import { readRoomEvent, readSync } from "./event-shape.ts";
import { type InboundSource, inboundMessage, type RoomEvent } from "./inbound.ts";
import type { MATRIX_KEYS } from "./keys.ts";
import { RoomMembers } from "./members.ts";
import { type MatrixSend, matrixSend, matrixUsername } from "./outbound.ts";
import { sdkLogger } from "./sdk-logger.ts";
import { syncFilter } from "./sync.ts";
import { mediaContent, uploadMedia, uploadRefusal } from "./uploads.ts";

type RequestOptions = Parameters<MatrixClient["http"]["authedRequest"]>[4];
type Settings = AccountConfig<typeof MATRIX_KEYS>["settings"];

/** How long the homeserver may hold a /sync open. */
const LONG_POLL_MS = 30_000;
/** A long poll not answered this long after its timeout is a dead link. */
const LONG_POLL_GRACE_MS = 15_000;
/** Fallback wait when a 429 names none. */
const DEFAULT_RETRY_AFTER_MS = 1_000;

export class MatrixConnection implements Connection {
  readonly #settings: Settings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  readonly #refusedUploads: RefusedUploads;
  readonly #members = new RoomMembers();
  readonly #malformed: MalformedEvents;
  /** Room id -> the channel as the config names it (an alias or a room id), and back. */
  readonly #channelOf = new Map<string, string>();
  readonly #roomOf = new Map<string, string>();
  /** Rooms the bot was joined to as of the last sync processed. */
  readonly #joinedRooms = new Set<string>();
  /** One transaction id per delivery: a send retried after a lost answer is not posted twice. */
  readonly #txnIds = new WeakMap<Delivery, string>();
  /** Per delivery with files: each file's mxc:// URI once uploaded ("" = refused), so a retry uploads none again. */
  readonly #uploaded = new WeakMap<Delivery, string[]>();
  #client: MatrixClient | undefined;
  #abort: AbortController | undefined;
  #userId = "";
  #accessToken: string | undefined;
  #deviceId: string | undefined;
  /** The sync position, kept across reconnects. Undefined until the first sync of the process. */
  #since: string | undefined;
  #txnCounter = 0;

  constructor(config: AccountConfig<typeof MATRIX_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#context = context;
    this.#logger = context.logger;
    this.#malformed = new MalformedEvents(context.logger);
    this.#refusedUploads = new RefusedUploads(context.logger);
  }

  get userId(): string {
    return this.#userId;
  }

  async connect(): Promise<void> {
    const abort = new AbortController();
    this.#abort = abort;
    const client = await this.#authenticate();
    if (abort.signal.aborted) throw new Error("disconnected while connecting");
    this.#client = client;
    const first = await this.#sync(client, abort, 0).catch((error: unknown) => {
      throw this.#connectError(error);
    });
    this.#process(first);
    void this.#syncLoop(client, abort);
  }

  /** A client with a working access token: Token (checked with whoami), else the last login's, else a new login. */
  async #authenticate(): Promise<MatrixClient> {
    const settings = this.#settings;
    const token = settings.Token || this.#accessToken;
    if (token) {
      try {
        const whoami = await this.#newClient(token).whoami();
        if (settings.Token && settings.MxID !== "" && whoami.user_id !== settings.MxID) {
          throw new AccountFailure(
            `Token belongs to ${whoami.user_id}, not to MxID ${settings.MxID}; fix MxID or Token`,
          );
        }
        this.#userId = whoami.user_id;
        this.#deviceId = whoami.device_id ?? this.#deviceId;
        return this.#newClient(token, whoami.user_id, this.#deviceId);
      } catch (error) {
        if (!isUnknownToken(error)) throw this.#connectError(error);
        if (settings.Token) {
          throw new AccountFailure(`the homeserver refused Token (${describe(error)}); check Token`);
        }
        this.#accessToken = undefined;
      }
    }
    try {
      const login = await this.#newClient().loginRequest({
        type: "m.login.password",
        identifier: { type: "m.id.user", user: settings.Login },
        password: settings.Password ?? "",
        initial_device_display_name: `Switchboard bridge ${VERSION}`,
        ...(this.#deviceId === undefined ? {} : { device_id: this.#deviceId }),
      });
      this.#userId = login.user_id;
      this.#accessToken = login.access_token;
      this.#deviceId = login.device_id;
      this.#logger.info({ userId: login.user_id }, `logged in as ${login.user_id}`);
      return this.#newClient(login.access_token, login.user_id, login.device_id);
    } catch (error) {
      if (error instanceof MatrixError && error.httpStatus === 403) {
        throw new AccountFailure(`the homeserver refused the login (${describe(error)}); check Login and Password`);
      }
      throw this.#connectError(error);
    }
  }

  #newClient(accessToken?: string, userId?: string, deviceId?: string): MatrixClient {
    return createClient({
      baseUrl: this.#settings.Server.replace(/\/+$/, ""),
      accessToken,
      userId,
      deviceId,
      // No client-side send queue: its retries would hide the homeserver's 429 from the core's queue.
      scheduler: new MatrixScheduler(undefined, () => null),
      logger: sdkLogger(this.#logger),
    });
  }

  #connectError(error: unknown): Error {
    if (error instanceof AccountFailure) return error;
    return new Error(`cannot reach the homeserver ${this.#settings.Server}: ${describe(error)}`);
  }

  /** One /sync request; its own timer bounds it (the library's would outlive the process). */
  async #sync(client: MatrixClient, abort: AbortController, timeoutMs: number): Promise<unknown> {
    const query: Record<string, string> = {
      filter: syncFilter(this.#since === undefined),
      timeout: String(timeoutMs),
    };
    if (this.#since !== undefined) query.since = this.#since;
    const timer = setTimeout(() => abort.abort(), timeoutMs + LONG_POLL_GRACE_MS);
    try {
      // (The options type asks for fetch's `priority`, which Node's RequestInit types make mandatory.)
      const options = { abortSignal: abort.signal } as RequestOptions;
      return await client.http.authedRequest<unknown>(Method.Get, "/sync", query, undefined, options);
    } finally {
      clearTimeout(timer);
    }
  }

  async #syncLoop(client: MatrixClient, abort: AbortController): Promise<void> {
    for (;;) {
      let response: unknown;
      try {
        response = await this.#sync(client, abort, LONG_POLL_MS);
      } catch (error) {
        if (this.#client !== client) return;
        if (isUnknownToken(error) && this.#settings.Token) {
          this.#context.failed(new AccountFailure(`the homeserver no longer accepts Token (${describe(error)})`));
          return;
        }
        this.#context.disconnected(new Error(`the /sync long poll failed: ${describe(error)}`));
        return;
      }
      if (this.#client !== client) return;
      if (!this.#process(response)) await unreadableSyncPause(abort.signal);
    }
  }

  /**
   * Learns rooms and members; relays new events (none from the process's first sync: that is history). An entry that
   * cannot be read is skipped with a log line; the cursor moves on. False when the answer has no cursor to move to.
   */
  #process(raw: unknown): boolean {
    const malformed = this.#malformed;
    const response = readSync(raw);
    if (typeof response === "string") {
      malformed.skip("a Matrix /sync answer", raw, response);
      return false;
    }
    const history = this.#since === undefined;
    this.#since = response.nextBatch;
    for (const room of response.joined) {
      const { roomId } = room;
      for (const entry of room.state) {
        const event = this.#readEvent(entry);
        if (event !== undefined) this.#learnMember(roomId, event);
      }
      // A room the bot just joined comes with its latest events, from before the join too: skip up to our join.
      let live = this.#joinedRooms.has(roomId);
      for (const entry of room.timeline) {
        const event = this.#readEvent(entry);
        if (event === undefined) continue;
        malformed.guard("a Matrix event", entry, () => {
          this.#learnMember(roomId, event);
          if (!live) {
            live = event.type === "m.room.member" && event.state_key === this.#userId;
            return;
          }
          if (!history) this.#relay(roomId, event);
        });
      }
      this.#joinedRooms.add(roomId);
    }
    for (const roomId of response.left) {
      this.#joinedRooms.delete(roomId);
      this.#members.forgetRoom(roomId);
    }
    return true;
  }

  #readEvent(entry: unknown): RoomEvent | undefined {
    const event = readRoomEvent(entry);
    if (typeof event !== "string") return event;
    this.#malformed.skip("a Matrix event", entry, event);
    return undefined;
  }

  #learnMember(roomId: string, event: RoomEvent): void {
    if (event.type === "m.room.member" && typeof event.state_key === "string") {
      this.#members.update(roomId, event.state_key, event.content);
    }
  }

  #relay(roomId: string, event: RoomEvent): void {
    if (event.sender === this.#userId) return;
    const channel = this.#channelOf.get(roomId);
    if (channel === undefined) return;
    const message = inboundMessage(event, this.#source(roomId, channel, event.sender), {
      keepQuotedReply: this.#settings.KeepQuotedReply,
      mediaUrl: (mxc) => this.#client?.mxcUrlToHttp(mxc) ?? mxc,
    });
    if (message !== undefined) this.#context.receive(message);
  }

  #source(roomId: string, channel: string, userId: string): InboundSource {
    const settings = this.#settings;
    const bare = userId.slice(1);
    let username = settings.UseUserName ? bare : (this.#members.displayName(roomId, userId) ?? bare);
    // Only the homeserver part of a user id is cut: a display name with a colon stays whole.
    if (settings.NoHomeServerSuffix && username === bare) username = bare.replace(/:.*$/, "");
    const mxc = this.#members.avatarUrl(roomId, userId);
    const avatar = mxc ? (this.#client?.mxcUrlToHttp(mxc, 37, 37, "crop") ?? "") : "";
    return { channel, username, userid: userId, avatar };
  }

  async join(request: JoinRequest): Promise<void> {
    const client = this.#client;
    if (client === undefined) throw new Error("not connected");
    try {
      const room = await client.joinRoom(request.channel, { syncRoom: false });
      this.#channelOf.set(room.roomId, request.channel);
      this.#roomOf.set(request.channel, room.roomId);
    } catch (error) {
      if (error instanceof MatrixError && error.httpStatus !== undefined && error.httpStatus < 500) {
        if (error.httpStatus === 429 || error.httpStatus === 401) throw error;
        // One refused room must not take the account down (or it would reconnect forever).
        this.#logger.warn(
          { channel: request.channel, reason: describe(error) },
          `cannot join ${request.channel}: ${describe(error)}`,
        );
        return;
      }
      throw error;
    }
  }

  send(delivery: Delivery): SendResult {
    const plan = matrixSend(delivery, {
      htmlDisable: this.#settings.HTMLDisable,
      allowMassMentions: this.#settings.AllowMassMentions,
      messageClipped: this.#settings.MessageClipped,
    });
    const uploads = delivery.uploads ?? [];
    if (plan.kind === "nothing" && uploads.length === 0) return "";
    const client = this.#client;
    if (client === undefined) throw new Error("not connected");
    const roomId = this.#roomOf.get(delivery.channel);
    if (roomId === undefined) throw new PermanentSendError(`not in ${delivery.channel} (the join failed)`);
    let txnId = this.#txnIds.get(delivery);
    if (txnId === undefined) {
      txnId = `sb${Date.now().toString(36)}.${++this.#txnCounter}`;
      this.#txnIds.set(delivery, txnId);
    }
    if (uploads.length === 0) return this.#sendPlan(client, roomId, plan, txnId);
    return this.#sendWithFiles(client, roomId, delivery, plan, txnId, uploads);
  }

  /**
   * The text (when there is one), then one event per file. Every event has its own transaction id derived from the
   * delivery's, so a retried delivery posts nothing twice; resolves with the text's id, else the first file's.
   */
  async #sendWithFiles(
    client: MatrixClient,
    roomId: string,
    delivery: Delivery,
    plan: MatrixSend,
    txnId: string,
    uploads: readonly LocalFile[],
  ): Promise<string> {
    const textId = plan.kind === "message" ? await this.#sendPlan(client, roomId, plan, txnId) : "";
    const message = delivery.message;
    // Without a text event, the file's caption says who sent it and the reply relation goes on the file.
    const nick = plan.kind === "message" ? "" : matrixUsername(message.username).plain.trim();
    const parent = message.parent_id === "" || message.parent_id === PARENT_NOT_FOUND ? "" : message.parent_id;
    const replyTo =
      plan.kind !== "message" && parent !== "" ? { "m.relates_to": { "m.in_reply_to": { event_id: parent } } } : {};
    const mxcs = this.#uploaded.get(delivery) ?? [];
    this.#uploaded.set(delivery, mxcs);
    const ids: string[] = [];
    try {
      for (const [index, file] of uploads.entries()) {
        if (index > 0 || textId !== "") await this.#context.pace();
        if (mxcs.length <= index) {
          const uploaded = await uploadUnlessRefused(
            file,
            () => uploadMedia(client, file),
            uploadRefusal,
            this.#refusedUploads,
          );
          mxcs.push(uploaded ?? "");
        }
        const mxc = mxcs[index] as string;
        const instead = mxc === "" ? refusedFileMessage(file, nick) : "";
        if (mxc === "" && instead === "") continue;
        const caption = [nick, file.comment].filter((part) => part !== "").join(" ");
        const content = mxc === "" ? { msgtype: "m.text", body: instead } : mediaContent(file, mxc, caption);
        const sent = await client.sendEvent(
          roomId,
          null,
          EventType.RoomMessage,
          { ...content, ...replyTo } as never,
          `${txnId}.${index}`,
        );
        ids.push(sent.event_id);
      }
    } catch (error) {
      throw this.#sendError(error);
    }
    return textId || (ids[0] ?? "");
  }

  /**
   * A media event's file by its mxc:// URI: the authenticated download (Matrix 1.11) with the access token, or the
   * legacy unauthenticated path on an older homeserver.
   */
  async fileRequest(file: FileInfo): Promise<FileRequest | undefined> {
    const mxc = /^mxc:\/\/([A-Za-z0-9.:[\]-]+)\/([A-Za-z0-9_-]+)$/.exec(file.NativeID);
    const client = this.#client;
    if (mxc === null || client === undefined) return undefined;
    const [, server, mediaId] = mxc as unknown as [string, string, string];
    const base = this.#settings.Server.replace(/\/+$/, "");
    const path = `${encodeURIComponent(server)}/${encodeURIComponent(mediaId)}`;
    const token = client.getAccessToken();
    const authenticated = token !== null && (await client.isVersionSupported("v1.11").catch(() => false));
    if (authenticated) {
      return { url: `${base}/_matrix/client/v1/media/download/${path}`, headers: { authorization: `Bearer ${token}` } };
    }
    return { url: `${base}/_matrix/media/v3/download/${path}` };
  }

  async #sendPlan(client: MatrixClient, roomId: string, plan: MatrixSend, txnId: string): Promise<string> {
    try {
      if (plan.kind === "redact") {
        await client.redactEvent(roomId, null, plan.eventId, txnId);
        return "";
      }
      if (plan.kind !== "message") return "";
      const sent = await client.sendEvent(roomId, null, EventType.RoomMessage, plan.content as never, txnId);
      // An edit keeps the original's id: later edits and deletes go to the original.
      return plan.editOf ?? sent.event_id;
    } catch (error) {
      throw this.#sendError(error);
    }
  }

  #sendError(error: unknown): Error {
    if (!(error instanceof HTTPError)) return asError(error);
    if (error.isRateLimitError()) return new RetryAfter(retryAfterMs(error));
    if (error.httpStatus === 401) {
      this.#context.disconnected(error);
      return error;
    }
    if (error.httpStatus !== undefined && error.httpStatus >= 400 && error.httpStatus < 500) {
      return new PermanentSendError(`the homeserver refused the message: ${describe(error)}`);
    }
    return error;
  }

  async disconnect(): Promise<void> {
    this.#client = undefined;
    this.#abort?.abort();
    this.#abort = undefined;
  }
}

function isUnknownToken(error: unknown): boolean {
  return error instanceof MatrixError && error.httpStatus === 401;
}

function retryAfterMs(error: HTTPError): number {
  try {
    return Math.max(0, error.getRetryAfterMs() ?? DEFAULT_RETRY_AFTER_MS);
  } catch {
    return DEFAULT_RETRY_AFTER_MS;
  }
}

/** "M_FORBIDDEN: Invalid username or password" (never a secret: the homeserver's own text). */
function describe(error: unknown): string {
  if (error instanceof MatrixError) return `${error.errcode ?? error.httpStatus}: ${error.data.error ?? error.message}`;
  if (error instanceof Error) return error.message;
  return thrownMessage(error);
}

/** A /sync answer without a cursor cannot move on: ask again after a pause, not at once (or at once when stopping). */
function unreadableSyncPause(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, 1000);
    signal.addEventListener("abort", done);
  });
}
