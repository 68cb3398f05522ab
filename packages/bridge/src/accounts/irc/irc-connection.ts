// The irc account's connection, on irc-framework. One client per connect attempt: register (SASL when UseSASL; a
// taken nick gets underscores), identify with NickServ, send RunCommands, then the core joins each channel. What the
// channels say goes to the core (inbound.ts); what the core sends becomes IRC lines (outbound.ts), each paced by the
// core's MessageDelay. irc-framework's own reconnect is off: the core supervises (a closed socket is `disconnected`).
import IRC, {
  type Client,
  type ClientEvents,
  type ClientOptions,
  type IrcErrorEvent,
  type MessageEvent,
} from "irc-framework";
import type { Logger } from "pino";
import type { AccountConfig } from "../../config/types.ts";
import type { Delivery, SendResult } from "../../core/account.ts";
import { AccountFailure, type Connection, type ConnectionContext, type JoinRequest } from "../../core/connection.ts";
import { type Message, PARENT_NOT_FOUND } from "../../message.ts";
import { VERSION } from "../../version.ts";
import { MalformedEvents } from "../malformed-events.ts";
import { readPemFile } from "../pem-file.ts";
import { guardCommands } from "./command-guard.ts";
import { expandRunCommand } from "./commands.ts";
import { TurnCork, writeCorked } from "./corked-writes.ts";
import { parseGoDuration } from "./duration.ts";
import {
  type IrcSource,
  nickChangeMessage,
  presenceMessage,
  type TextKind,
  textMessage,
  topicMessage,
  usersMessages,
} from "./inbound.ts";
import type { IRC_KEYS } from "./keys.ts";
import { type RefusedLine, refuseUnsafeLines } from "./line-guard.ts";
import { alternativeNick } from "./nick.ts";
import { type IrcLine, ircLines } from "./outbound.ts";
import { rawIrcLine } from "./raw-line.ts";
import { Roster } from "./roster.ts";
import {
  applyTwitchTags,
  deleteMessage,
  isTwitch,
  SlidingWindowLimit,
  TWITCH_CAPS,
  TWITCH_LIMIT,
  TWITCH_MODERATOR_LIMIT,
  TWITCH_WINDOW_MS,
} from "./twitch.ts";
import { type Wire, wireFor } from "./wire.ts";

type Settings = AccountConfig<typeof IRC_KEYS>["settings"];

/** How long a JOIN may go unanswered before it is logged and given up (the account stays up). */
const JOIN_ANSWER_MS = 10_000;
/** How long to wait for NickServ's answer to IDENTIFY before joining anyway (Matterbridge waits 5 s always). */
const NICKSERV_ANSWER_MS = 5_000;
/** How long QUIT may take at disconnect before the socket is cut. */
const QUIT_MS = 2_000;

/** Numeric errors refusing a JOIN, as irc-framework names them. */
const JOIN_REFUSALS = new Set([
  "channel_is_full",
  "invite_only_channel",
  "banned_from_channel",
  "bad_channel_key",
  "too_many_channels",
  "cannot_join_channel",
]);

const NICKSERV_REFUSED = /invalid password|password incorrect|incorrect password|authentication failed|not registered/i;

/** What a log line shows of a line irc-framework parsed: its command and parameters. */
function rawLine(line: unknown): unknown {
  if (typeof line !== "object" || line === null) return line;
  const { command, params } = line as { command?: unknown; params?: unknown };
  return { command, params };
}

/** host:port, with [v6]:port. */
function parseServer(server: string): { host: string; port: number } {
  const colon = server.lastIndexOf(":");
  let host = server.slice(0, colon);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return { host, port: Number(server.slice(colon + 1)) };
}

export class IrcConnection implements Connection {
  readonly #settings: Settings;
  readonly #context: ConnectionContext;
  readonly #logger: Logger;
  readonly #wire: Wire;
  #client: Client | undefined;
  #registered = false;
  #roster: Roster | undefined;
  /** Channels we are in, folded -> the spelling the config uses (messages carry that one). */
  readonly #joined = new Map<string, string>();
  /** Channel keys, folded channel -> key, for rejoining after a kick. */
  readonly #keys = new Map<string, string>();
  readonly #timers = new Set<NodeJS.Timeout>();
  /** Aborted by disconnect(): ends a connect still waiting for the server (its listeners are gone by then). */
  #attempt?: AbortController;
  /** Lines of a multi-line delivery already written, so a send retried after a drop does not repeat them. */
  readonly #progress = new WeakMap<Delivery, number>();
  /** Twitch chat (twitch.ts): its capabilities, tags and rate limit; the channels where the bot is a moderator. */
  readonly #twitch: boolean;
  readonly #twitchLimit = new SlidingWindowLimit(TWITCH_WINDOW_MS);
  readonly #moderatorIn = new Set<string>();
  /** A server's event the handlers cannot read is skipped with one log line, never a crash. */
  readonly #malformed: MalformedEvents;
  /**
   * Bursts (MessageDelay 0) go out corked, several messages a write; not on Twitch, where each message waits for
   * its own place in Twitch's rate window.
   */
  readonly sendBatch: ((deliveries: readonly Delivery[]) => Promise<string[]>) | undefined;
  /** The lines of single sends in one turn leave together (a burst's first messages, before the queue batches). */
  readonly #turnCork = new TurnCork();
  /** Channels (case-folded) whose NAMES list was asked for by `!users`: its answer goes to the gateway. */
  readonly #usersAsked = new Set<string>();

  constructor(config: AccountConfig<typeof IRC_KEYS>, context: ConnectionContext) {
    this.#settings = config.settings;
    this.#context = context;
    this.#logger = context.logger;
    this.#malformed = new MalformedEvents(this.#logger);
    this.#wire = wireFor(config.settings.Charset);
    this.#twitch = isTwitch(config.settings);
    this.sendBatch = this.#twitch ? undefined : (deliveries) => this.#sendCorked(deliveries);
  }

  readonly #refusedLine: RefusedLine = (command) =>
    this.#logger.error({ command }, "refused to write an IRC line holding CR, LF or NUL; the line was not sent");

  /** The nick the server knows us by (it may differ from Nick while that one is taken). */
  get nick(): string {
    return this.#client?.user.nick ?? this.#settings.Nick;
  }

  async connect(): Promise<void> {
    const settings = this.#settings;
    const { host, port } = parseServer(settings.Server);
    const pingMs = parseGoDuration(settings.PingDelay) || 60_000;
    const client = new IRC.Client();
    guardCommands(client, (line, error) => this.#malformed.skip("an IRC line", rawLine(line), error));
    refuseUnsafeLines(client, this.#refusedLine);
    this.#client = client;
    this.#registered = false;
    this.#roster = new Roster((name) => client.caseLower(name));
    this.#joined.clear();
    this.#moderatorIn.clear();
    if (this.#twitch) client.requestCap(TWITCH_CAPS);
    const attempt = new AbortController();
    this.#attempt = attempt;
    const registered = this.#register(client, attempt.signal);
    client.connect({
      host,
      port,
      nick: settings.Nick,
      username: ircUserName(settings.UserName || settings.Nick),
      gecos: settings.RealName || settings.Nick,
      password: settings.Password || undefined,
      tls: settings.UseTLS,
      rejectUnauthorized: !settings.SkipTLSVerify,
      ...clientCertificate(settings.TLSClientCertificate),
      ...(settings.Bind === "" ? {} : { outgoing_addr: settings.Bind }),
      encoding: this.#wire.encoding,
      // An empty account object stops irc-framework from trying the server Password as SASL credentials.
      account:
        settings.UseSASL && settings.NickServPassword
          ? { account: settings.NickServNick || settings.Nick, password: settings.NickServPassword }
          : {},
      sasl_disconnect_on_fail: true,
      auto_reconnect: false,
      ping_interval: Math.max(1, Math.round(pingMs / 1000)),
      // Dead links are noticed after two missed pings (irc-framework's default is a fixed 120 s).
      ping_timeout: Math.max(30, Math.round((2 * pingMs) / 1000)),
      // We split lines ourselves (outbound.ts) and write them raw; this only bounds irc-framework's own say().
      message_max_length: 4096,
      version: `Switchboard bridge ${VERSION}`,
    });
    await registered;
    this.#listen(client);
    await this.#identify(client, attempt.signal);
    if (attempt.signal.aborted) throw new Error("disconnected while identifying to NickServ");
    await this.#runCommands(client);
  }

  /** Resolves once the server welcomed us; rejects when it refuses us or the socket closes first. */
  #register(client: Client, abandoned: AbortSignal): Promise<void> {
    const settings = this.#settings;
    return new Promise<void>((resolve, reject) => {
      let attempt = 0;
      const done = (error?: Error) => {
        abandoned.removeEventListener("abort", onAbandoned);
        client.off("registered", onRegistered);
        client.off("close", onClose);
        client.off("nick in use", onNickInUse);
        client.off("nick invalid", onNickInvalid);
        client.off("irc error", onError);
        client.off("sasl failed", onSaslFailed);
        client.off("notice", onNotice);
        if (error) reject(error);
        else resolve();
      };
      const onRegistered = () => {
        this.#registered = true;
        if (!client.caseCompare(client.user.nick, settings.Nick)) {
          this.#logger.warn({ nick: client.user.nick }, `nick ${settings.Nick} is taken; using ${client.user.nick}`);
        }
        done();
      };
      const onClose = () => done(new Error("the server closed the connection before registration completed"));
      const onAbandoned = () => done(new Error("disconnected before registration completed"));
      const onNickInUse = () => {
        attempt++;
        client.changeNick(alternativeNick(settings.Nick, attempt));
      };
      const onNickInvalid = () =>
        done(new AccountFailure(`the server refuses the nick "${settings.Nick}"; change Nick`));
      const onError = (event: IrcErrorEvent) => {
        if (event.error === "password_mismatch") {
          done(new AccountFailure("the server refused the password (Password)"));
        } else if (event.error === "irc" && /password/i.test(event.reason ?? "")) {
          // ngIRCd answers a wrong PASS with "ERROR :Access denied: Bad password?" and no 464.
          done(new AccountFailure(`the server refused the password (Password): ${event.reason}`));
        } else if (event.error === "irc") {
          done(new Error(`the server closed the link: ${event.reason ?? "no reason given"}`));
        }
      };
      // Twitch refuses a token with a NOTICE before closing the link.
      const onNotice = (event: MessageEvent) => {
        if (/login authentication failed|improperly formatted auth/i.test(event.message)) {
          done(new AccountFailure(`Twitch refused the login (${event.message}); check Password ("oauth:<token>")`));
        }
      };
      const onSaslFailed = (event: { reason: string; message?: string }) =>
        done(
          new AccountFailure(
            `SASL authentication failed (${event.message ?? event.reason}); check NickServNick and NickServPassword`,
          ),
        );
      client.on("registered", onRegistered);
      client.on("close", onClose);
      client.on("nick in use", onNickInUse);
      client.on("nick invalid", onNickInvalid);
      client.on("irc error", onError);
      client.on("sasl failed", onSaslFailed);
      client.on("notice", onNotice);
      abandoned.addEventListener("abort", onAbandoned);
    });
  }

  /** NickServ IDENTIFY (or QuakeNet's AUTH) when not using SASL; waits (bounded) for the answer before joining. */
  async #identify(client: Client, abandoned: AbortSignal): Promise<void> {
    const settings = this.#settings;
    const service = settings.NickServNick;
    const password = settings.NickServPassword;
    if (settings.UseSASL || service === "" || !password) return;
    const answered = new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => finish(undefined), NICKSERV_ANSWER_MS);
      const onNotice = (event: { nick: string; message: string }) => {
        if (client.caseCompare(event.nick, service.split("@")[0] ?? service)) finish(event.message);
      };
      const finish = (answer: string | undefined) => {
        clearTimeout(timer);
        client.off("notice", onNotice);
        client.off("close", onClose);
        abandoned.removeEventListener("abort", onClose);
        resolve(answer);
      };
      const onClose = () => finish(undefined);
      client.on("notice", onNotice);
      client.on("close", onClose);
      abandoned.addEventListener("abort", onClose);
    });
    if (service.toLowerCase() === "q@cserve.quakenet.org") {
      client.raw("PRIVMSG", service, `AUTH ${settings.NickServUsername} ${password}`);
    } else {
      client.raw("PRIVMSG", service, `IDENTIFY ${password}`);
    }
    const answer = await answered;
    if (answer !== undefined && NICKSERV_REFUSED.test(answer)) {
      throw new AccountFailure(`${service} refused to identify us: ${answer}; check NickServPassword`);
    }
    if (answer === undefined) this.#logger.debug({ service }, "no answer to IDENTIFY; joining anyway");
  }

  async #runCommands(client: Client): Promise<void> {
    for (const command of this.#settings.RunCommands) {
      if (this.#client !== client) return;
      // Raw lines count toward flood limits like messages do.
      await this.#context.pace();
      client.raw(this.#wire.encode(expandRunCommand(command, client.user.nick)));
    }
  }

  async join(request: JoinRequest): Promise<void> {
    const client = this.#client;
    if (client === undefined || !this.#registered) throw new Error("not connected");
    if (this.#settings.JoinDelay > 0) await this.#sleep(this.#settings.JoinDelay);
    if (this.#client !== client) throw new Error("disconnected while waiting to join");
    const channel = request.channel;
    const key = typeof request.options.key === "string" ? request.options.key : "";
    if (key !== "") this.#keys.set(client.caseLower(channel), key);
    const outcome = await new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => finish("the server did not answer the JOIN"), JOIN_ANSWER_MS);
      const onJoin = (event: { nick: string; channel: string }) => {
        if (client.caseCompare(event.nick, client.user.nick) && client.caseCompare(event.channel, channel)) {
          finish(undefined);
        }
      };
      const onError = (event: IrcErrorEvent) => {
        if (JOIN_REFUSALS.has(event.error) && event.channel && client.caseCompare(event.channel, channel)) {
          finish(`${event.error.replaceAll("_", " ")}${event.reason ? `: ${event.reason}` : ""}`);
        }
      };
      const onClose = () => finish("disconnected");
      const finish = (problem: string | undefined) => {
        clearTimeout(timer);
        client.off("join", onJoin);
        client.off("irc error", onError);
        client.off("close", onClose);
        resolve(problem);
      };
      client.on("join", onJoin);
      client.on("irc error", onError);
      client.on("close", onClose);
      client.join(this.#wire.encode(channel), key === "" ? undefined : key);
    });
    if (outcome === "disconnected") throw new Error(`disconnected while joining ${channel}`);
    if (outcome !== undefined) {
      // One refused channel must not take the account down (or it would reconnect forever).
      this.#logger.warn({ channel, reason: outcome }, `cannot join ${channel}: ${outcome}`);
      return;
    }
    this.#joined.set(client.caseLower(channel), channel);
  }

  send(delivery: Delivery): SendResult {
    const lines = ircLines(delivery, this.#settings);
    const start = this.#progress.get(delivery) ?? 0;
    if (lines.length - start <= 0) return "";
    const client = this.#liveClient();
    this.#askUsers(client, delivery);
    if (this.#twitch) return this.#sendLines(client, delivery, lines, start);
    if (lines.length - start === 1)
      return this.#write(client, delivery.channel, lines[start] as IrcLine).then(() => "");
    return this.#sendLines(client, delivery, lines, start);
  }

  /**
   * Every line of every delivery (those not written yet, for a multi-line one retried), corked into one write:
   * all are counted as sent once the socket took them all, none when a write fails.
   */
  async #sendCorked(deliveries: readonly Delivery[]): Promise<string[]> {
    const client = this.#liveClient();
    const raw: string[] = [];
    for (const delivery of deliveries) {
      this.#askUsers(client, delivery);
      const lines = ircLines(delivery, this.#settings);
      for (let index = this.#progress.get(delivery) ?? 0; index < lines.length; index++) {
        raw.push(this.#rawLine(delivery.channel, lines[index] as IrcLine));
      }
    }
    await writeCorked(client, raw, this.#refusedLine);
    for (const delivery of deliveries) this.#progress.delete(delivery);
    return deliveries.map(() => "");
  }

  /**
   * Matterbridge's `!users`: a message of just that text, relayed to the channel as any other, also asks the server
   * who is there (NAMES); the answer goes back to the gateway (see the userlist listener). Asked once per delivery,
   * not again when a failed send is retried.
   */
  #askUsers(client: Client, delivery: Delivery): void {
    if (delivery.message.text.trim() !== "!users" || this.#progress.has(delivery)) return;
    this.#usersAsked.add(client.caseLower(delivery.channel));
    client.raw("NAMES", delivery.channel);
  }

  /** Several lines: the queue paced the first; each further one waits for its own MessageDelay slot. */
  async #sendLines(client: Client, delivery: Delivery, lines: IrcLine[], start: number): Promise<string> {
    for (let index = start; index < lines.length; index++) {
      if (index > start) await this.#context.pace();
      if (this.#twitch) await this.#twitchSlot(delivery.channel);
      if (this.#client !== client || !client.connected) {
        this.#progress.set(delivery, index);
        throw new Error("disconnected while sending a multi-line message");
      }
      await this.#write(
        client,
        delivery.channel,
        lines[index] as IrcLine,
        this.#twitch && index === 0 ? twitchReply(delivery) : undefined,
      );
    }
    this.#progress.delete(delivery);
    return "";
  }

  #liveClient(): Client {
    const client = this.#client;
    if (client === undefined || !this.#registered || !client.connected) throw new Error("not connected");
    return client;
  }

  /**
   * Writes one line; resolves once the socket has taken it (handed to the kernel, which delivers it even if this
   * process dies next), so that a line still in Node's own buffer at a crash is not counted as sent and stays queued.
   */
  #write(client: Client, channel: string, line: IrcLine, replyTo?: string): Promise<void> {
    const raw = this.#rawLine(channel, line, replyTo);
    this.#turnCork.hold(client);
    return new Promise((resolve, reject) => {
      const taken = client.connection.write(raw, (error) => {
        if (error) reject(error);
        // irc-framework's write answers false (and calls back at once) when the client is not connected.
        else if (taken === false) reject(new Error("not connected"));
        else resolve();
      });
    });
  }

  /** The line as irc-framework writes it (without its CRLF; raw-line.ts). */
  #rawLine(channel: string, line: IrcLine, replyTo?: string): string {
    const wire = this.#wire;
    const tag = replyTo === undefined ? undefined : `@reply-parent-msg-id=${replyTo}`;
    return rawIrcLine(line.command, wire.encode(channel), wire.encode(line.text), tag);
  }

  /** Waits until Twitch's window has room for one more message (the core's MessageDelay pacing comes on top). */
  async #twitchSlot(channel: string): Promise<void> {
    const moderator = this.#moderatorIn.has(channel.toLowerCase());
    const wait = this.#twitchLimit.reserve(moderator ? TWITCH_MODERATOR_LIMIT : TWITCH_LIMIT);
    if (wait > 0) await this.#sleep(wait);
  }

  async disconnect(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#registered = false;
    this.#attempt?.abort();
    this.#attempt = undefined;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#joined.clear();
    this.#roster?.clear();
    if (client === undefined) return;
    client.removeAllListeners();
    const closed = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, QUIT_MS);
      client.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    // irc-framework emits "error" events in a few cases; with our listeners gone, one must not crash the process.
    client.on("error" as never, () => {});
    if (client.connected) {
      client.quit("Switchboard bridge stopping");
      await closed;
    }
    client.connection.end();
  }

  /** A wait that disconnect() cuts short (it resolves then, and the caller sees the client is gone). */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve();
      }, ms);
      this.#timers.add(timer);
    });
  }

  /** `client.on` with each event handled under the malformed-event guard. */
  #guardedOn(client: Client) {
    return <E extends keyof ClientEvents>(event: E, listener: (...args: ClientEvents[E]) => void): void => {
      client.on(event, (...args: ClientEvents[E]) =>
        this.#malformed.guard(`an IRC ${event} event`, args[0], () => listener(...args)),
      );
    };
  }

  /** The listeners of a registered client; removed all at once in disconnect(). */
  #listen(client: Client): void {
    const on = this.#guardedOn(client);
    const roster = this.#roster as Roster;
    const wire = this.#wire;
    const settings = this.#settings;
    const isMe = (nick: string) => client.caseCompare(nick, client.user.nick);
    const source = (event: { nick: string; ident: string; hostname: string }): IrcSource => ({
      nick: wire.decode(event.nick),
      ident: wire.decode(event.ident ?? ""),
      hostname: event.hostname ?? "",
    });

    client.on("close", () => {
      this.#registered = false;
      this.#context.disconnected(new Error("the connection to the IRC server closed"));
    });

    const onText = (kind: TextKind) => (event: MessageEvent) => {
      // Notices from the server itself, queries to the bot, and our own lines are not relayed.
      if (event.from_server || event.nick === "" || isMe(event.nick)) return;
      // A CTCP irc-framework did not parse (no closing \x01): neither a message nor an action.
      if (event.message.startsWith("\x01")) return;
      const channel = this.#joined.get(client.caseLower(event.target));
      if (channel === undefined) return;
      const message = textMessage(kind, source(event), channel, wire.decode(event.message));
      this.#receive(this.#twitch ? applyTwitchTags(message, event.tags ?? {}) : message);
    };
    if (this.#twitch) this.#listenTwitch(client);
    on("privmsg", onText("privmsg"));
    on("action", onText("action"));
    on("notice", onText("notice"));

    on("userlist", (event) => {
      const nicks = event.users.map((user) => user.nick);
      roster.setMembers(event.channel, nicks);
      const folded = client.caseLower(event.channel);
      const channel = this.#joined.get(folded);
      if (!this.#usersAsked.delete(folded) || channel === undefined) return;
      const decoded = nicks.map((nick) => wire.decode(nick));
      for (const message of usersMessages(decoded, channel, client.user.nick)) this.#receive(message);
    });
    on("join", (event) => {
      roster.add(event.channel, event.nick);
      if (isMe(event.nick)) return;
      this.#presence("joins", source(event), event.channel);
    });
    on("part", (event) => {
      if (isMe(event.nick)) {
        roster.forget(event.channel);
        return;
      }
      roster.remove(event.channel, event.nick);
      this.#presence("parts", source(event), event.channel);
    });
    on("kick", (event) => {
      if (isMe(event.kicked)) {
        this.#kicked(client, event.channel, event.nick, event.message);
        return;
      }
      roster.remove(event.channel, event.kicked);
      this.#presence("kicks", source(event), event.channel, wire.decode(event.kicked));
    });
    on("quit", (event) => {
      const channels = roster.channelsOf(event.nick, true);
      if (isMe(event.nick)) return;
      for (const channel of channels) this.#presence("quits", source(event), channel);
      this.#maybeRegainNick(client, event.nick);
    });
    on("nick", (event) => {
      const channels = roster.rename(event.nick, event.new_nick);
      // irc-framework has already updated client.user.nick when the change is ours.
      if (isMe(event.new_nick)) {
        this.#logger.info({ nick: event.new_nick }, `nick is now ${event.new_nick}`);
        return;
      }
      for (const channel of channels) {
        const configured = this.#joined.get(channel);
        if (configured !== undefined && !settings.NoSendJoinPart) {
          this.#receive(nickChangeMessage(source(event), wire.decode(event.new_nick), configured));
        }
      }
      this.#maybeRegainNick(client, event.nick);
    });
    on("topic", (event) => {
      // RPL_TOPIC on join has no nick: only changes are relayed.
      if (event.nick === undefined || isMe(event.nick)) return;
      const channel = this.#joined.get(client.caseLower(event.channel));
      if (channel !== undefined)
        this.#receive(topicMessage(wire.decode(event.nick), channel, wire.decode(event.topic)));
    });
  }

  /** Twitch's own commands: CLEARMSG (a deleted message), USERSTATE (are we a moderator?), rate-limit notices. */
  #listenTwitch(client: Client): void {
    const on = this.#guardedOn(client);
    on("unknown command", (event) => {
      const channelName = event.params[0] ?? "";
      if (event.command === "USERSTATE") {
        const moderator = event.tags.mod === "1" || /(^|,)broadcaster\//.test(event.tags.badges ?? "");
        if (moderator) this.#moderatorIn.add(channelName.toLowerCase());
        else this.#moderatorIn.delete(channelName.toLowerCase());
        return;
      }
      if (event.command !== "CLEARMSG") return;
      const channel = this.#joined.get(client.caseLower(channelName));
      const deleted = channel === undefined ? undefined : deleteMessage(channel, event.tags);
      if (deleted !== undefined) this.#receive(deleted);
    });
    on("notice", (event) => {
      if (event.tags?.["msg-id"] === "msg_ratelimit") {
        this.#logger.warn(
          { channel: event.target },
          `Twitch dropped a message as over its rate limit: ${event.message}`,
        );
      }
    });
  }

  #presence(what: "joins" | "parts" | "quits" | "kicks", who: IrcSource, channelName: string, detail = ""): void {
    if (this.#settings.NoSendJoinPart) return;
    const client = this.#client;
    const channel = client && this.#joined.get(client.caseLower(channelName));
    if (channel === undefined) return;
    this.#receive(presenceMessage(what, who, channel, this.#settings.VerboseJoinPart, detail));
  }

  #receive(message: Message): void {
    this.#context.receive(message);
  }

  /** Kicked: rejoin after RejoinDelay seconds (Matterbridge does the same through a rejoin event). */
  #kicked(client: Client, channelName: string, by: string, reason: string): void {
    const folded = client.caseLower(channelName);
    const channel = this.#joined.get(folded) ?? channelName;
    this.#joined.delete(folded);
    this.#roster?.forget(channelName);
    const delay = this.#settings.RejoinDelay;
    this.#logger.warn({ channel, by, reason }, `kicked from ${channel} by ${by}; rejoining in ${delay} s`);
    void this.#sleep(delay * 1000).then(async () => {
      if (this.#client !== client || !client.connected) return;
      await this.join({ channel, options: { key: this.#keys.get(folded) ?? "" } }).catch(() => {});
    });
  }

  /** The nick we wanted was taken and its holder just left it: take it back. */
  #maybeRegainNick(client: Client, goneNick: string): void {
    const wanted = this.#settings.Nick;
    if (!client.caseCompare(goneNick, wanted) || client.caseCompare(client.user.nick, wanted)) return;
    this.#logger.info({ nick: wanted }, `nick ${wanted} is free again; taking it back`);
    client.changeNick(wanted);
  }
}

/** The Twitch message a delivery replies to, when there is one to name (ids are Twitch's UUIDs). */
function twitchReply(delivery: Delivery): string | undefined {
  const parent = delivery.message.parent_id;
  return parent !== "" && parent !== PARENT_NOT_FOUND && /^[\w-]+$/.test(parent) ? parent : undefined;
}

/** An ident the server accepts: Matterbridge drops leading characters until girc accepts it, else "matterbridge". */
function ircUserName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, "");
  return cleaned === "" ? "bridge" : cleaned;
}

/**
 * TLSClientCertificate: one PEM file holding the certificate and its key (Matterbridge's format), read at each
 * connect so that a renewed certificate is used from the next reconnect.
 */
function clientCertificate(path: string): Pick<ClientOptions, "client_certificate"> {
  if (path === "") return {};
  const pem = readPemFile("TLSClientCertificate", path);
  return { client_certificate: { private_key: pem, certificate: pem } };
}
