// The slack account's connection: a Slack app's bot token for the Web API (@slack/web-api) and its app-level token
// for Socket Mode (@slack/socket-mode), so no public URL is needed. connect() checks the bot token (auth.test), reads
// the channels and opens the Socket Mode connection; the library's own reconnects are off, so a lost connection is a
// reported disconnect and the core reconnects with backoff (Slack keeps and retries the events meanwhile). Events
// are handled one at a time, in order, once each (Slack may deliver one again). The Web API client neither retries
// nor waits out rate limits: a 429 reaches the core's queue as RetryAfter. Files: shared files arrive as Extra.file
// entries fetched from url_private with the bot token (fileRequest); uploads follow the text (uploads.ts), each
// shared with the sender's nick as its comment, as the app posts them under its own name.
import { SocketModeClient } from "@slack/socket-mode";
import { WebClient } from "@slack/web-api";
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
import type { LocalFile } from "../../core/files/local-file.ts";
import { Events, emptyMessage, PARENT_NOT_FOUND } from "../../message.ts";
import { fileLines } from "../file-lines.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { OwnPosts } from "../own-posts.ts";
import { RefusedUploads, refusedFileMessage, uploadUnlessRefused } from "../upload-fallback.ts";
import { SlackDirectory, type SlackUser } from "./directory.ts";
import { isNetworkError, platformError, sendFailure, tokenFailure } from "./errors.ts";
import { readEvent } from "./event-shape.ts";
import { type Inbound, interpret, type Self, type SlackEvent, type SlackFile } from "./inbound.ts";
import type { SLACK_KEYS } from "./keys.ts";
import { readableText, slackText } from "./mrkdwn.ts";
import { outboundText, postedName } from "./outbound.ts";
import { slackLogger } from "./sdk-logger.ts";
import { guardSocketFrames } from "./socket-frames.ts";
import { UploadRefused, uploadToSlack } from "./uploads.ts";

type Settings = AccountConfig<typeof SLACK_KEYS>["settings"];

/** Event ids remembered to drop a redelivered event (Slack retries what it thinks was not acknowledged). */
const EVENT_IDS_KEPT = 1000;
const CALL_TIMEOUT_MS = 30_000;
/** Unknown users one message's mentions may ask Slack about; the others are shown by their id. */
const MENTION_LOOKUPS_PER_MESSAGE = 10;

export class SlackConnection implements Connection {
  readonly #settings: Settings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  readonly #refusedUploads: RefusedUploads;
  readonly #directory = new SlackDirectory(() => this.#liveClient());
  #web: WebClient | undefined;
  #socket: SocketModeClient | undefined;
  #self: Self | undefined;
  /** Configured channel -> Slack channel id, and back. */
  readonly #ids = new Map<string, string>();
  readonly #names = new Map<string, string>();
  readonly #seenEvents = new Set<string>();
  /** Inbound events, handled in the order they came. */
  #inbound: Promise<void> = Promise.resolve();
  readonly #malformed: MalformedEvents;
  /** The messages this app posted, to know their echoes by timestamp. */
  readonly #own = new OwnPosts();
  /** Per delivery with files: the text's ts once posted, and how many files went, so a retry repeats neither. */
  readonly #textSent = new WeakMap<Delivery, string>();
  readonly #filesSent = new WeakMap<Delivery, string[]>();

  constructor(config: AccountConfig<typeof SLACK_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#context = context;
    this.#logger = context.logger;
    this.#malformed = new MalformedEvents(context.logger);
    this.#refusedUploads = new RefusedUploads(context.logger);
  }

  async connect(): Promise<void> {
    const settings = this.#settings;
    const slackApiUrl = settings.ApiURL.endsWith("/") ? settings.ApiURL : `${settings.ApiURL}/`;
    const web = new WebClient(settings.Token.trim(), {
      slackApiUrl,
      logger: slackLogger(this.#logger, "@slack/web-api"),
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: CALL_TIMEOUT_MS,
    });
    try {
      const auth = await web.auth.test();
      this.#self = { userId: auth.user_id ?? "", botId: auth.bot_id ?? "" };
      this.#web = web;
      await this.#directory.loadChannels();
      this.#logger.info({ user: auth.user, team: auth.team }, `logged in to Slack as ${auth.user} on ${auth.team}`);
    } catch (error) {
      throw tokenFailure(error, "Token") ?? describe(error, "connecting to the Slack Web API");
    }
    const socket = new SocketModeClient({
      appToken: settings.AppToken.trim(),
      autoReconnectEnabled: false,
      logger: slackLogger(this.#logger, "@slack/socket-mode"),
      clientOptions: { slackApiUrl, retryConfig: { retries: 0 }, timeout: CALL_TIMEOUT_MS },
    });
    this.#socket = socket;
    guardSocketFrames(socket, (frame, reason) => this.#malformed.skip("a Slack event", frame, reason));
    socket.on("slack_event", (envelope: Envelope) => this.#onEnvelope(socket, envelope));
    try {
      await socket.start();
    } catch (error) {
      throw tokenFailure(error, "AppToken") ?? describe(error, "opening the Socket Mode connection");
    }
    if (this.#socket !== socket) throw new Error("disconnected while connecting");
    socket.on("disconnected", () => {
      if (this.#socket === socket) this.#context.disconnected(new Error("the Socket Mode connection closed"));
    });
  }

  async join(request: JoinRequest): Promise<void> {
    const channel = this.#directory.findChannel(request.channel);
    if (channel === undefined) {
      this.#logger.warn(
        { channel: request.channel },
        `no channel ${request.channel} in this Slack workspace; channels: ${this.#directory.channelNames().join(", ")} (or "ID:C0123...")`,
      );
      return;
    }
    if (!channel.isMember) {
      // Apps cannot join channels on their own: someone invites them.
      this.#logger.warn(
        { channel: request.channel },
        `the app is not in #${channel.name}; invite it there (/invite @<app name>) to bridge the channel`,
      );
    }
    this.#ids.set(request.channel, channel.id);
    this.#names.set(channel.id, request.channel);
  }

  send(delivery: Delivery): Promise<string> {
    return this.#send(delivery).catch((error: unknown) => {
      throw this.#sendError(error);
    });
  }

  async disconnect(): Promise<void> {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#web = undefined;
    if (socket) {
      socket.removeAllListeners("slack_event");
      socket.removeAllListeners("disconnected");
      await socket.disconnect().catch(() => {});
    }
  }

  async #send(delivery: Delivery): Promise<string> {
    const web = this.#liveClient();
    const channel = this.#ids.get(delivery.channel);
    if (channel === undefined) throw new PermanentSendError(`${delivery.channel} is not a Slack channel of this app`);
    const message = delivery.message;
    if (message.event === Events.msgDelete) {
      if (message.id !== "") await this.#delete(web, channel, message.id);
      return "";
    }
    if (message.event === Events.userTyping || message.event === Events.fileDelete) return "";
    const settings = this.#settings;
    const text = slackText(outboundText(delivery, settings), (name) => this.#directory.userIdByName(name));
    if (text.trim() === "" && (delivery.uploads ?? []).length === 0) return "";
    if (message.id !== "") {
      await web.chat.update({ channel, ts: message.id, text });
      return message.id;
    }
    const parent = message.parent_id === PARENT_NOT_FOUND ? "" : message.parent_id;
    const uploads = delivery.uploads ?? [];
    if (uploads.length === 0) return await this.#post(web, delivery, channel, parent, text);
    // A file without text is the upload alone; otherwise the text first (under the sender's name), then the files.
    const fileOnly = message.text.trim() === "" && fileLines(message).length === 0;
    let id = this.#textSent.get(delivery) ?? "";
    if (!fileOnly && id === "") {
      id = await this.#post(web, delivery, channel, parent, text);
      this.#textSent.set(delivery, id);
    }
    const shared = await this.#uploadFiles(web, delivery, channel, parent, uploads);
    return id === "" ? (shared.find((ts) => ts !== "") ?? "") : id;
  }

  async #post(web: WebClient, delivery: Delivery, channel: string, parent: string, text: string): Promise<string> {
    const identity = postedName(delivery, this.#settings);
    const posted = await this.#own.track(
      channel,
      web.chat.postMessage({ channel, text, ...identity, ...(parent === "" ? {} : { thread_ts: parent }) }),
      (answer) => answer.ts ?? "",
    );
    return posted.ts ?? "";
  }

  /**
   * Each file not sent by an earlier attempt of this delivery, shared with the sender's nick as its comment; a file
   * Slack refuses is replaced by its link. Resolves with the shares' timestamps.
   */
  async #uploadFiles(
    web: WebClient,
    delivery: Delivery,
    channel: string,
    parent: string,
    uploads: readonly LocalFile[],
  ): Promise<string[]> {
    const sent = this.#filesSent.get(delivery) ?? [];
    this.#filesSent.set(delivery, sent);
    const lookup = (name: string) => this.#directory.userIdByName(name);
    const nick = delivery.message.username.trim();
    for (const file of uploads.slice(sent.length)) {
      if (sent.length > 0) await this.#context.pace();
      const comment = slackText([nick, file.comment].filter((part) => part !== "").join(" "), lookup);
      const ts = await uploadUnlessRefused(
        file,
        () => uploadToSlack(web, file, { channel, threadTs: parent, comment }),
        (error) => (error instanceof UploadRefused ? error.message : undefined),
        this.#refusedUploads,
      );
      if (ts === undefined) {
        const instead = refusedFileMessage(file, this.#settings.PrefixMessagesWithNick ? nick : "");
        const text = instead === "" ? "" : slackText(instead, lookup);
        sent.push(text === "" ? "" : await this.#post(web, delivery, channel, parent, text));
      } else sent.push(ts);
    }
    return sent;
  }

  /** A file shared on Slack: its url_private, with the bot token (sent to Slack's own hosts only). */
  fileRequest(file: FileInfo): FileRequest | undefined {
    let url: URL;
    try {
      url = new URL(file.NativeID);
    } catch {
      return undefined;
    }
    const apiHost = new URL(this.#settings.ApiURL).host;
    const slackHost = url.hostname === "slack.com" || url.hostname.endsWith(".slack.com");
    if (!slackHost && url.host !== apiHost) return undefined;
    return { url: url.href, headers: { authorization: `Bearer ${this.#settings.Token.trim()}` } };
  }

  async #delete(web: WebClient, channel: string, ts: string): Promise<void> {
    try {
      await web.chat.delete({ channel, ts });
    } catch (error) {
      // Already gone is what a delete wants.
      if (platformError(error) !== "message_not_found") throw error;
    }
  }

  #sendError(error: unknown): Error {
    if (isNetworkError(error)) {
      // The link is down: report it, so the queue holds this message for the reconnect instead of dropping it.
      this.#context.disconnected(error);
      return describe(error, "sending");
    }
    const refused = tokenFailure(error, "Token");
    if (refused) this.#context.failed(refused);
    return sendFailure(error);
  }

  #onEnvelope(socket: SocketModeClient, envelope: Envelope): void {
    // Acknowledge first, as Slack asks (within 3 s); a failed ack means Slack will deliver the event again.
    Promise.resolve()
      .then(() => envelope.ack())
      .catch(() => {});
    this.#malformed.guard("a Slack event", envelope.body, () => {
      const body = envelope.body;
      if (envelope.type !== "events_api" || body === undefined || body === null || body.event === undefined) return;
      const event = readEvent(body.event);
      if (typeof event === "string") {
        this.#malformed.skip("a Slack event", body.event, event);
        return;
      }
      // The envelope is addressed to this app: its api_app_id is the app id the app's own posts carry.
      if (this.#self !== undefined && !this.#self.appId && typeof body.api_app_id === "string") {
        this.#self.appId = body.api_app_id;
      }
      const eventId = typeof body.event_id === "string" ? body.event_id : undefined;
      if (eventId !== undefined) {
        if (this.#seenEvents.has(eventId)) return;
        this.#seenEvents.add(eventId);
        if (this.#seenEvents.size > EVENT_IDS_KEPT) this.#seenEvents.delete(this.#seenEvents.values().next().value!);
      }
      this.#inbound = this.#inbound
        .then(() =>
          this.#socket === socket
            ? this.#malformed.guardAsync("a Slack event", body.event, () => this.#handle(event))
            : undefined,
        )
        .catch((error: unknown) => this.#logger.error({ err: error }, "could not handle a Slack event"));
    });
  }

  async #handle(event: SlackEvent): Promise<void> {
    const channel = event.channel === undefined ? undefined : this.#names.get(event.channel);
    const self = this.#self;
    if (channel === undefined || self === undefined || event.channel === undefined) return;
    // An echo of a post still being made comes before the answer with its timestamp.
    await this.#own.settled(event.channel);
    const inbound = interpret(event, { ...self, posted: (ts) => this.#own.has(ts) }, this.#settings.EditDisable);
    if (inbound.kind === "ignore") return;
    if (inbound.kind === "delete") {
      this.#context.receive(emptyMessage({ id: inbound.id, channel, event: Events.msgDelete }));
      return;
    }
    // A sender Slack cannot tell us about now (rate-limited) is shown by their id: the message is never dropped.
    const user = inbound.userId === undefined ? undefined : await this.#directory.user(inbound.userId);
    const text = await this.#readable(inbound.text);
    this.#context.receive(
      emptyMessage({
        text: inbound.edited ? `${text}${this.#settings.EditSuffix}` : text,
        channel,
        username: this.#nameOf(user, inbound),
        userid: inbound.userId ?? "",
        avatar: user?.avatar ?? "",
        id: inbound.id,
        parent_id: inbound.parentId,
        event: inbound.event,
        Extra: inbound.files.length === 0 ? null : { file: inbound.files.map(sharedFile) },
      }),
    );
  }

  /** Mentions resolved first (users asked of Slack when not known yet), then the text made readable. */
  async #readable(text: string): Promise<string> {
    const asked: Promise<unknown>[] = [];
    for (const match of text.matchAll(/<@([A-Z0-9]+)/g)) {
      if (asked.length >= MENTION_LOOKUPS_PER_MESSAGE) break;
      const id = match[1] as string;
      // The directory runs a few at once and answers repeated ids from one lookup.
      if (this.#directory.wouldAsk(id)) asked.push(this.#directory.user(id));
    }
    await Promise.all(asked);
    return readableText(text, {
      user: (id) => {
        const user = this.#directory.knownUser(id);
        return user === undefined ? undefined : this.#displayName(user);
      },
      channel: (id) => this.#directory.channelName(id),
    });
  }

  #nameOf(user: SlackUser | undefined, inbound: Extract<Inbound, { kind: "text" }>): string {
    if (inbound.event === Events.joinLeave || inbound.event === Events.topicChange) return "system";
    if (inbound.postedAs) return inbound.postedAs;
    // Nobody Slack can name (an integration without a user): its id at least, never an empty nick.
    return user === undefined ? inbound.userId || "unknown" : this.#displayName(user);
  }

  #displayName(user: SlackUser): string {
    const settings = this.#settings;
    if (settings.UseUserName) return user.name || user.id;
    if (settings.UseFullName && user.realName !== "") return user.realName;
    return user.displayName || user.name || user.id;
  }

  #liveClient(): WebClient {
    if (this.#web === undefined) throw new Error("not connected");
    return this.#web;
  }
}

interface Envelope {
  ack(): Promise<void>;
  type?: string;
  /** Unchecked: whatever Slack sent. */
  body?: { event?: unknown; event_id?: unknown; api_app_id?: unknown } | null;
}

/** An error whose message says what was being done; tokens never appear (the library does not put them in errors). */
function describe(error: unknown, doing: string): Error {
  if (error instanceof AccountFailure) return error;
  const code = platformError(error);
  const reason = code ?? thrownMessage(error);
  return new Error(`${doing}: ${reason}`);
}

/** A shared file as an Extra.file entry: its Slack page as the link, its url_private for the download. */
function sharedFile(file: SlackFile) {
  return fileInfo({
    Name: file.name ?? "file",
    URL: file.permalink ?? "",
    Size: file.size ?? 0,
    NativeID: file.url_private_download ?? file.url_private ?? "",
  });
}
