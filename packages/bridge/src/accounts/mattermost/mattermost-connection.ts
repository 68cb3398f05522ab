// The mattermost account's connection: API v4 (api.ts) for logging in, finding the team and channels, and posting;
// the WebSocket API (websocket.ts) for what happens in the channels. connect() logs in (Login/Password, or Token),
// finds the Team and opens the WebSocket; join() finds each channel (joining it when the account is not in it yet).
// A lost WebSocket is a reported disconnect; the core reconnects with backoff, and each channel then reads back the
// posts made, edited or deleted meanwhile (GET /channels/{id}/posts?since=), so nothing said while away is lost.
// Files: a post's files arrive as Extra.file entries fetched from /api/v4/files/{id} with the session (fileRequest);
// uploads go to POST /api/v4/files first, then the post carries their file_ids (at most 10 per post).
import { thrownMessage } from "@switchboard/common";
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
import { type FileInfo, fileInfo } from "../../core/files/file-info.ts";
import { Events, emptyMessage, PARENT_NOT_FOUND } from "../../message.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { OwnPosts } from "../own-posts.ts";
import { isFileRefusalStatus, RefusedUploads, refusedFileLine, uploadUnlessRefused } from "../upload-fallback.ts";
import { MattermostApi } from "./api.ts";
import { credentialsFailure, isApiError, isNetworkError, sendFailure } from "./errors.ts";
import { type Change, interpret, type MattermostFile, type MattermostPost } from "./inbound.ts";
import type { MATTERMOST_KEYS } from "./keys.ts";
import { outboundText, postProps } from "./outbound.ts";
import { postOfEvent, readPost } from "./post-shape.ts";
import { serverUrl } from "./server-url.ts";
import { type MattermostEvent, MattermostSocket } from "./websocket.ts";

type Settings = AccountConfig<typeof MATTERMOST_KEYS>["settings"];

const CHANGES: Record<string, Change> = { posted: "posted", post_edited: "edited", post_deleted: "deleted" };
/** Post versions remembered so a post seen both live and when reading back is relayed once. */
const SEEN_KEPT = 2000;
const USERS_KEPT = 5000;
/** Mattermost attaches at most this many files to one post. */
const FILES_PER_POST = 10;

/** A delivery's files once uploaded: their ids, and the lines of those the server refused. */
interface Attached {
  fileIds: string[];
  lines: string[];
}

interface UserNames {
  username: string;
  nickname: string;
}

export class MattermostConnection implements Connection {
  readonly #settings: Settings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  readonly #refusedUploads: RefusedUploads;
  readonly #baseUrl: string;
  #api: MattermostApi | undefined;
  #socket: MattermostSocket | undefined;
  #userId = "";
  #teamId = "";
  /** Configured channel -> channel id, and back. */
  readonly #ids = new Map<string, string>();
  readonly #names = new Map<string, string>();
  /** Per channel id: the newest post change handled (server time, ms), where reading back starts. */
  readonly #lastSeen = new Map<string, number>();
  readonly #seen = new Set<string>();
  readonly #users = new Map<string, UserNames>();
  /** Per delivery with files: what was uploaded, so a retried post does not upload them again. */
  readonly #attached = new WeakMap<Delivery, Attached>();
  #inbound: Promise<void> = Promise.resolve();
  readonly #malformed: MalformedEvents;
  /** The posts this account made, to know their echoes by id. */
  readonly #own = new OwnPosts();

  constructor(config: AccountConfig<typeof MATTERMOST_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#context = context;
    this.#logger = context.logger;
    this.#malformed = new MalformedEvents(context.logger);
    this.#refusedUploads = new RefusedUploads(context.logger);
    this.#baseUrl = serverUrl(config.settings.Server, config.settings.NoTLS);
  }

  async connect(): Promise<void> {
    const settings = this.#settings;
    const api = new MattermostApi(this.#baseUrl, settings.SkipTLSVerify);
    const usingToken = settings.Token.trim() !== "";
    try {
      let me: { id: string; username: string };
      if (usingToken) {
        api.setToken(settings.Token.trim());
        me = await api.me();
      } else {
        me = await api.login(settings.Login, settings.Password);
      }
      this.#userId = me.id;
      this.#teamId = (await api.teamByName(settings.Team)).id;
      this.#logger.info({ user: me.username }, `logged in to Mattermost at ${this.#baseUrl} as ${me.username}`);
    } catch (error) {
      await api.close();
      if (isApiError(error, 404)) {
        throw new AccountFailure(`no team "${settings.Team}" on ${this.#baseUrl}, or the account is not in it (Team)`);
      }
      throw credentialsFailure(error, usingToken) ?? describe(error, `connecting to ${this.#baseUrl}`);
    }
    this.#api = api;
    const socket = new MattermostSocket(
      `${this.#baseUrl.replace(/^http/i, "ws")}/api/v4/websocket`,
      api.token,
      !settings.SkipTLSVerify,
    );
    this.#socket = socket;
    try {
      await socket.open({
        event: (event) => this.#malformed.guard("a Mattermost event", event, () => this.#onEvent(socket, event)),
        closed: (reason) => {
          if (this.#socket === socket) this.#context.disconnected(reason);
        },
      });
    } catch (error) {
      throw describe(error, "opening the WebSocket");
    }
  }

  async join(request: JoinRequest): Promise<void> {
    const api = this.#liveApi();
    let channel: { id: string; name: string; last_post_at?: number };
    try {
      channel = request.channel.startsWith("ID:")
        ? await api.channel(request.channel.slice(3))
        : await api.channelByName(this.#teamId, request.channel.replace(/^[#~]/, ""));
    } catch (error) {
      if (!isApiError(error) || error.status >= 500) throw error;
      this.#logger.warn(
        { channel: request.channel },
        `no channel ${request.channel} in team ${this.#settings.Team} (${error.message}); use the channel's name from its URL, or "ID:<id>"`,
      );
      return;
    }
    try {
      await api.joinChannel(channel.id, this.#userId);
    } catch (error) {
      if (!isApiError(error) || error.status >= 500) throw error;
      this.#logger.warn(
        { channel: request.channel },
        `cannot join ${request.channel}: ${error.message}; add the account to it`,
      );
      return;
    }
    this.#ids.set(request.channel, channel.id);
    this.#names.set(channel.id, request.channel);
    const since = this.#lastSeen.get(channel.id);
    if (since === undefined) this.#lastSeen.set(channel.id, channel.last_post_at ?? 0);
    else await this.#readBack(api, channel.id, since);
  }

  send(delivery: Delivery): Promise<string> {
    return this.#send(delivery).catch((error: unknown) => {
      throw this.#sendError(error);
    });
  }

  async disconnect(): Promise<void> {
    this.#socket?.close();
    this.#socket = undefined;
    const api = this.#api;
    this.#api = undefined;
    await api?.close();
  }

  async #send(delivery: Delivery): Promise<string> {
    const api = this.#liveApi();
    const channelId = this.#ids.get(delivery.channel);
    if (channelId === undefined) throw new PermanentSendError(`${delivery.channel} is not a channel the account is in`);
    const message = delivery.message;
    if (message.event === Events.msgDelete) {
      if (message.id !== "") await this.#delete(api, message.id);
      return "";
    }
    if (message.event === Events.userTyping || message.event === Events.fileDelete) return "";
    const text = outboundText(delivery, this.#settings);
    const uploads = delivery.uploads ?? [];
    if (text.trim() === "" && uploads.length === 0) return "";
    if (message.id !== "") {
      await api.patchPost(message.id, text);
      return message.id;
    }
    const root = await this.#threadRoot(api, message.parent_id);
    const attached = uploads.length === 0 ? { fileIds: [], lines: [] } : await this.#attach(api, channelId, delivery);
    const body = [text, ...attached.lines].filter((part) => part.trim() !== "").join("\n");
    // The text with the first files; more than a post takes go in posts of their own, in the same thread.
    const [first = [], ...rest] = chunks(attached.fileIds, FILES_PER_POST);
    const id = await this.#post(api, delivery, {
      channel_id: channelId,
      message: body,
      root_id: root,
      file_ids: first,
    });
    for (const fileIds of rest) {
      await this.#context.pace();
      await this.#post(api, delivery, { channel_id: channelId, message: "", root_id: root, file_ids: fileIds });
    }
    return id;
  }

  async #post(
    api: MattermostApi,
    delivery: Delivery,
    post: { channel_id: string; message: string; root_id: string; file_ids: string[] },
  ): Promise<string> {
    const created = await this.#own.track(
      post.channel_id,
      api.createPost({
        ...post,
        ...(post.file_ids.length === 0 ? { file_ids: undefined } : {}),
        props: postProps(delivery, this.#settings),
      }),
      (answer) => (typeof answer?.id === "string" ? answer.id : ""),
    );
    return created.id;
  }

  /** Uploads the delivery's files not uploaded yet; a file the server refuses becomes its link line. */
  async #attach(api: MattermostApi, channelId: string, delivery: Delivery): Promise<Attached> {
    const attached = this.#attached.get(delivery) ?? { fileIds: [], lines: [] };
    this.#attached.set(delivery, attached);
    const uploads = delivery.uploads ?? [];
    const done = attached.fileIds.length + attached.lines.length;
    for (const file of uploads.slice(done)) {
      const info = await uploadUnlessRefused(
        file,
        async () => api.uploadFile(channelId, file.name, await file.blob()),
        refusal,
        this.#refusedUploads,
      );
      if (info !== undefined) attached.fileIds.push(info.id);
      else attached.lines.push(refusedFileLine(file));
    }
    return attached;
  }

  /** A file of a post: /api/v4/files/{id} with the session token. */
  fileRequest(file: FileInfo): FileRequest | undefined {
    if (this.#api === undefined || !/^[a-z0-9]+$/.test(file.NativeID)) return undefined;
    return this.#api.fileDownload(file.NativeID);
  }

  /** Mattermost threads have one root: a reply to a reply goes to that reply's root. */
  async #threadRoot(api: MattermostApi, parentId: string): Promise<string> {
    if (parentId === "" || parentId === PARENT_NOT_FOUND) return "";
    try {
      const parent = await api.post(parentId);
      return parent.root_id || parent.id;
    } catch (error) {
      // A parent deleted meanwhile must not cost the message: it goes to the channel.
      if (isApiError(error, 404) || isApiError(error, 403)) return "";
      throw error;
    }
  }

  async #delete(api: MattermostApi, id: string): Promise<void> {
    try {
      await api.deletePost(id);
    } catch (error) {
      if (!isApiError(error, 404)) throw error; // already gone is what a delete wants
    }
  }

  #sendError(error: unknown): Error {
    if (isNetworkError(error)) {
      // The link is down: report it, so the queue holds this message for the reconnect instead of dropping it.
      this.#context.disconnected(error);
      return describe(error, "sending");
    }
    if (isApiError(error, 401)) {
      this.#context.failed(new Error(`Mattermost no longer accepts the session: ${(error as Error).message}`));
    }
    return sendFailure(error);
  }

  #onEvent(socket: MattermostSocket, event: MattermostEvent): void {
    const change = Object.hasOwn(CHANGES, event.event) ? CHANGES[event.event] : undefined;
    if (change === undefined) return;
    const post = postOfEvent(event.data);
    if (typeof post === "string") {
      this.#malformed.skip(`a Mattermost ${event.event} event`, event, post);
      return;
    }
    this.#enqueue(() => (this.#socket === socket ? this.#handle(post, change) : undefined));
  }

  /** The posts of a channel changed since `since`, in the order they changed, as the live events would have been. */
  async #readBack(api: MattermostApi, channelId: string, since: number): Promise<void> {
    const list = await api.postsSince(channelId, since);
    const posts = [];
    for (const raw of Object.values(list?.posts ?? {})) {
      const post = readPost(raw);
      if (typeof post === "string") this.#malformed.skip("a Mattermost post read back", raw, post);
      else posts.push(post);
    }
    posts.sort((a, b) => (a.update_at ?? 0) - (b.update_at ?? 0));
    for (const post of posts) {
      const change: Change =
        (post.delete_at ?? 0) > 0 ? "deleted" : (post.create_at ?? 0) > since ? "posted" : "edited";
      this.#enqueue(() => this.#handle(post, change));
    }
  }

  #enqueue(work: () => Promise<void> | undefined): void {
    this.#inbound = this.#inbound
      .then(work)
      .catch((error: unknown) => this.#logger.error({ err: error }, "could not handle a Mattermost post"));
  }

  async #handle(post: MattermostPost, change: Change): Promise<void> {
    const channel = this.#names.get(post.channel_id);
    if (channel === undefined) return;
    // An echo of a post still being made comes before the answer with its id.
    await this.#own.settled(post.channel_id);
    const version = `${post.id}:${change}:${post.update_at ?? 0}`;
    if (this.#seen.has(version)) return;
    this.#seen.add(version);
    if (this.#seen.size > SEEN_KEPT) this.#seen.delete(this.#seen.values().next().value as string);
    this.#lastSeen.set(post.channel_id, Math.max(this.#lastSeen.get(post.channel_id) ?? 0, post.update_at ?? 0));
    const inbound = interpret(post, change, this.#userId, {
      editDisable: this.#settings.EditDisable,
      postedByUs: (id) => this.#own.has(id),
    });
    if (inbound.kind === "ignore") return;
    if (inbound.kind === "delete") {
      this.#context.receive(emptyMessage({ id: inbound.id, channel, event: Events.msgDelete }));
      return;
    }
    const username =
      inbound.event === Events.joinLeave ? "system" : (inbound.postedAs ?? (await this.#nameOf(inbound.userId)));
    this.#context.receive(
      emptyMessage({
        text: inbound.edited ? `${inbound.text}${this.#settings.EditSuffix}` : inbound.text,
        channel,
        username,
        userid: inbound.userId,
        id: inbound.id,
        parent_id: inbound.parentId,
        event: inbound.event,
        Extra: inbound.files.length === 0 ? null : { file: inbound.files.map((file) => this.#fileEntry(file)) },
      }),
    );
  }

  /** A post's file as an Extra.file entry: its API link (opens for people logged in to the server). */
  #fileEntry(file: MattermostFile) {
    return fileInfo({
      Name: file.name,
      URL: `${this.#baseUrl}/api/v4/files/${file.id}`,
      Size: file.size,
      NativeID: file.id,
    });
  }

  async #nameOf(userId: string): Promise<string> {
    let user = this.#users.get(userId);
    if (user === undefined) {
      try {
        const profile: unknown = await this.#liveApi().user(userId);
        const fields = (typeof profile === "object" && profile !== null ? profile : {}) as Record<string, unknown>;
        // A profile without a user name is named by its id (never "undefined" or an empty nick).
        const username = typeof fields.username === "string" && fields.username !== "" ? fields.username : userId;
        user = { username, nickname: typeof fields.nickname === "string" ? fields.nickname : "" };
        if (this.#users.size >= USERS_KEPT) this.#users.delete(this.#users.keys().next().value as string);
        this.#users.set(userId, user);
      } catch {
        return userId;
      }
    }
    return this.#settings.UseUserName || user.nickname === "" ? user.username : user.nickname;
  }

  #liveApi(): MattermostApi {
    if (this.#api === undefined) throw new Error("not connected");
    return this.#api;
  }
}

/** An error whose message says what was being done; credentials never appear in it. */
function describe(error: unknown, doing: string): Error {
  if (error instanceof AccountFailure) return error;
  const reason = thrownMessage(error);
  // fetch says only "fetch failed"; what failed (refused, a certificate it does not trust...) is its cause.
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
  const hint = /certificate/i.test(cause) ? "; for a self-signed server set SkipTLSVerify = true" : "";
  return new Error(`${doing}: ${reason}${cause}${hint}`);
}

/** Why the server refused a file (a 4xx for the file itself), or undefined for any other failure. */
function refusal(error: unknown): string | undefined {
  return isApiError(error) && isFileRefusalStatus(error.status) ? error.message : undefined;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let at = 0; at < items.length; at += size) result.push(items.slice(at, at + size));
  return result;
}
