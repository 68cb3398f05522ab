// The msteams account's connection: the signed-in session (session.ts: device-code sign-in, refresh, SessionFile),
// Graph through the Graph client (graph.ts), and a poll per channel every PollInterval (channel-poller.ts). connect()
// signs in and checks the user and the TeamID; join() checks the channel and starts its poll. A poll that gets no
// answer is a reported disconnect; the core reconnects with backoff and each poll resumes from its last seen time.
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
import { Events, PARENT_NOT_FOUND } from "../../message.ts";
import { sendBySteps } from "../delivery-steps.ts";
import { relayChange } from "../inbound-change.ts";
import { objectOf, stringOf } from "../json-fields.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { OwnPosts } from "../own-posts.ts";
import { ChannelPoller } from "./channel-poller.ts";
import { describeGraph, isGraphError, isNetworkError, retryAfterMs, sendFailure } from "./errors.ts";
import { bridgeId, parseBridgeId, TeamsGraph } from "./graph.ts";
import { IdentityClient } from "./identity.ts";
import { interpret } from "./inbound.ts";
import type { MSTEAMS_KEYS } from "./keys.ts";
import type { TeamsMessage } from "./message-shape.ts";
import { outboundHtml } from "./outbound.ts";
import { signInFailure, TeamsSession } from "./session.ts";
import { SessionFileError, sessionFilePath } from "./session-file.ts";

type Settings = AccountConfig<typeof MSTEAMS_KEYS>["settings"];

/** What Teams shows: plain messages, actions and deletes. */
const SENT_EVENTS = new Set<string>(["", Events.userAction, Events.msgDelete]);

export class MsteamsConnection implements Connection {
  readonly #settings: Settings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  readonly #session: TeamsSession;
  #graph: TeamsGraph | undefined;
  #userId = "";
  /** Bumped by each connect and disconnect: a late answer of an earlier attempt changes nothing. */
  #generation = 0;
  readonly #pollers = new Map<string, ChannelPoller>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #joined = new Set<string>();
  readonly #malformed: MalformedEvents;
  readonly #own = new OwnPosts();

  constructor(config: AccountConfig<typeof MSTEAMS_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#context = context;
    this.#logger = context.logger;
    this.#malformed = new MalformedEvents(context.logger);
    const identity = new IdentityClient(config.settings.LoginURL, config.settings.TenantID, config.settings.ClientID);
    const path = sessionFilePath(config.settings.SessionFile, context.configPath, config.name);
    this.#session = new TeamsSession(identity, path, context.logger);
  }

  async connect(): Promise<void> {
    const generation = ++this.#generation;
    const settings = this.#settings;
    try {
      await this.#session.start();
    } catch (error) {
      if (error instanceof SessionFileError) throw new AccountFailure(error.message);
      throw signInFailure(error) ?? describe(error, "signing in to Microsoft");
    }
    if (generation !== this.#generation) throw new Error("a newer connection attempt took over");
    const graph = new TeamsGraph(settings.GraphURL, settings.TeamID, () => this.#session.accessToken());
    try {
      const me = objectOf(await graph.me());
      this.#userId = stringOf(me?.id) ?? "";
      await graph.team();
      const name = stringOf(me?.displayName) ?? this.#userId;
      this.#logger.info({ user: this.#userId }, `signed in to Microsoft Teams as ${name}`);
    } catch (error) {
      if (isGraphError(error, 404) || isGraphError(error, 400)) {
        throw new AccountFailure(`no team ${settings.TeamID} in Microsoft Teams (${describeGraph(error)}) (TeamID)`);
      }
      if (isGraphError(error, 403)) {
        throw new AccountFailure(
          `the signed-in user may not read team ${settings.TeamID} (${describeGraph(error)}); add them to the team (TeamID)`,
        );
      }
      throw describe(error, "reading the team");
    }
    if (generation !== this.#generation) throw new Error("a newer connection attempt took over");
    this.#graph = graph;
    this.#joined.clear();
  }

  async join(request: JoinRequest): Promise<void> {
    const graph = this.#liveGraph();
    const channelId = request.channel.trim();
    try {
      await graph.channel(channelId);
    } catch (error) {
      if (!isGraphError(error) || error.statusCode >= 500 || error.statusCode === 429 || error.statusCode === 401)
        throw error;
      this.#logger.warn(
        { channel: request.channel },
        `no channel ${channelId} in the team (${describeGraph(error)}); the channel is its threadId (19:…@thread.skype, from the channel's link)`,
      );
      return;
    }
    let poller = this.#pollers.get(channelId);
    if (poller === undefined) {
      poller = new ChannelPoller(channelId, this.#session.cursor(channelId));
      this.#pollers.set(channelId, poller);
      // Learn where the channel stands now (or read back from the kept time) before the first wait.
      await this.#pollOnce(graph, poller);
    }
    this.#joined.add(channelId);
    this.#schedule(graph, poller, this.#settings.PollInterval);
  }

  send(delivery: Delivery): Promise<string> {
    return this.#send(delivery).catch((error: unknown) => {
      throw this.#sendError(error);
    });
  }

  async disconnect(): Promise<void> {
    this.#generation++;
    this.#graph = undefined;
    this.#joined.clear();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  #schedule(graph: TeamsGraph, poller: ChannelPoller, ms: number): void {
    const generation = this.#generation;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (generation !== this.#generation) return;
      this.#pollOnce(graph, poller).then(
        () => {
          if (generation === this.#generation) this.#schedule(graph, poller, this.#settings.PollInterval);
        },
        (error: unknown) => {
          if (generation === this.#generation) this.#pollFailed(graph, poller, error);
        },
      );
    }, ms);
    this.#timers.add(timer);
  }

  async #pollOnce(graph: TeamsGraph, poller: ChannelPoller): Promise<void> {
    await poller.poll(graph, {
      message: (message, since, known) =>
        this.#malformed.guardAsync("a Teams message", message, () =>
          this.#handle(poller.channelId, message, since, known),
        ),
      unreadable: (raw, reason) => this.#malformed.skip("a Teams message", raw, reason),
    });
    if (poller.since !== undefined) this.#session.setCursor(poller.channelId, poller.since);
  }

  #pollFailed(graph: TeamsGraph, poller: ChannelPoller, error: unknown): void {
    if (isGraphError(error, 429)) {
      this.#schedule(graph, poller, Math.max(retryAfterMs(error), this.#settings.PollInterval));
      return;
    }
    if (isGraphError(error, 401)) {
      // An access token refused before its time: the next poll refreshes it.
      this.#session.invalidate();
      this.#schedule(graph, poller, this.#settings.PollInterval);
      return;
    }
    // Anything else, a refresh the identity platform refused included (the Graph client wraps it): reconnect; the
    // next connect refreshes or, when the session is gone, asks for a new sign-in.
    this.#context.disconnected(describe(error, `reading channel ${poller.channelId}`));
  }

  async #handle(channelId: string, message: TeamsMessage, since: number, known: boolean): Promise<void> {
    await this.#own.settled(channelId);
    const inbound = interpret(message, since, known, {
      ownUserId: this.#userId,
      editDisable: this.#settings.EditDisable,
      postedByUs: (id) => this.#own.has(id),
    });
    relayChange(this.#context, inbound, channelId, this.#settings.EditSuffix);
  }

  async #send(delivery: Delivery): Promise<string> {
    const graph = this.#liveGraph();
    const channelId = delivery.channel.trim();
    if (!this.#joined.has(channelId)) throw new PermanentSendError(`${channelId} is not a channel the account reads`);
    const message = delivery.message;
    return sendBySteps(message, {
      shows: (event) => SENT_EVENTS.has(event),
      text: () => outboundHtml(delivery, this.#settings.MessageClipped),
      remove: (id) => graph.softDelete(channelId, parseBridgeId(id)),
      alreadyGone: (error) => isGraphError(error, 404),
      edit: (id, html) => graph.update(channelId, parseBridgeId(id), html),
      post: async (html) => {
        const parent = message.parent_id === PARENT_NOT_FOUND ? "" : message.parent_id;
        // Teams threads have one level: a reply to a reply goes to its root's thread.
        const root = parent === "" ? undefined : parseBridgeId(parent).root;
        return idOfPosted(await this.#own.track(channelId, graph.post(channelId, html, root), idOfPosted));
      },
    });
  }

  #sendError(error: unknown): Error {
    if (isNetworkError(error)) {
      this.#context.disconnected(error);
      return describe(error, "sending");
    }
    if (isGraphError(error, 401)) this.#session.invalidate();
    return sendFailure(error);
  }

  #liveGraph(): TeamsGraph {
    if (this.#graph === undefined) throw new Error("not connected");
    return this.#graph;
  }
}

/** The bridge's id of a message Graph answered a post with. */
function idOfPosted(posted: unknown): string {
  const fields = objectOf(posted);
  const id = stringOf(fields?.id) ?? "";
  const replyTo = stringOf(fields?.replyToId);
  if (id === "") return "";
  return replyTo ? bridgeId({ root: replyTo, reply: id }) : id;
}

/** An error whose message says what was being done; credentials never appear in it. */
function describe(error: unknown, doing: string): Error {
  if (error instanceof AccountFailure) return error;
  const reason = describeGraph(error);
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return new Error(`${doing}: ${reason}${cause}`);
}
