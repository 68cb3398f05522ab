// Types for irc-framework 4.14 (it ships none and there is no @types package), covering what Switchboard uses.
// Written from its source (src/client.js, src/commands/handlers/*.js); extend when a new event or method is needed.
declare module "irc-framework" {
  import { EventEmitter } from "node:events";

  export interface ClientOptions {
    host?: string;
    port?: number;
    nick?: string;
    username?: string;
    /** The "real name" sent in USER. */
    gecos?: string;
    /** Server password (PASS). */
    password?: string;
    tls?: boolean;
    rejectUnauthorized?: boolean;
    /** An iconv-lite encoding name for the wire ("utf8" by default); lines are converted both ways. */
    encoding?: string;
    /**
     * SASL PLAIN credentials, sent when the server offers the sasl capability. An empty object turns SASL off (without
     * it, irc-framework tries the server `password` as SASL credentials for the nick).
     */
    account?: { account: string; password: string } | Record<string, never>;
    sasl_mechanism?: string;
    sasl_disconnect_on_fail?: boolean;
    version?: string | null;
    enable_echomessage?: boolean;
    auto_reconnect?: boolean;
    auto_reconnect_max_wait?: number;
    auto_reconnect_max_retries?: number;
    /** Seconds between client PINGs (0 turns them off). */
    ping_interval?: number;
    /** Seconds without data before the client gives up on the server (0 turns this off). */
    ping_timeout?: number;
    /** say()/notice() split longer lines at this many bytes (default 350). */
    message_max_length?: number;
    /** The local address to connect from. */
    outgoing_addr?: string;
    /** A client certificate for the TLS handshake (PEM: both may be the same file's bytes). */
    client_certificate?: { private_key: Buffer | string; certificate: Buffer | string };
  }

  /** Fields every message-like event carries. */
  export interface SourceFields {
    nick: string;
    ident: string;
    hostname: string;
    tags: Record<string, string>;
    time?: number;
    account?: string | false;
  }

  export interface MessageEvent extends SourceFields {
    from_server: boolean;
    /** A channel or our nick. */
    target: string;
    group?: string;
    message: string;
    reply(message: string): void;
  }
  export interface JoinEvent extends SourceFields {
    channel: string;
    gecos: string;
  }
  export interface PartEvent extends SourceFields {
    channel: string;
    message: string;
  }
  export interface KickEvent extends SourceFields {
    kicked: string;
    channel: string;
    message: string;
  }
  export interface QuitEvent extends SourceFields {
    message: string;
  }
  export interface NickEvent extends SourceFields {
    new_nick: string;
  }
  export interface TopicEvent {
    channel: string;
    topic: string;
    /** Absent when the topic is the reply to a JOIN (RPL_TOPIC) rather than a change. */
    nick?: string;
    time?: number;
    tags: Record<string, string>;
  }
  export interface RegisteredEvent {
    nick: string;
    tags: Record<string, string>;
  }
  export interface NickInUseEvent {
    nick: string;
    reason: string;
  }
  export interface IrcErrorEvent {
    error: string;
    channel?: string;
    nick?: string;
    reason?: string;
  }
  export interface SaslFailedEvent {
    reason: string;
    message?: string;
    nick?: string;
  }
  export interface ReconnectingEvent {
    attempt: number;
    max_retries: number;
    wait: number;
  }
  export interface UserlistEvent {
    channel: string;
    users: { nick: string; ident: string; hostname: string; modes: string[] }[];
    tags: Record<string, string>;
  }
  export interface RawEvent {
    line: string;
    from_server: boolean;
  }

  export interface ClientEvents {
    registered: [RegisteredEvent];
    connected: [RegisteredEvent];
    privmsg: [MessageEvent];
    action: [MessageEvent];
    notice: [MessageEvent];
    join: [JoinEvent];
    part: [PartEvent];
    kick: [KickEvent];
    quit: [QuitEvent];
    nick: [NickEvent];
    topic: [TopicEvent];
    /** The members of a channel (RPL_NAMREPLY ... RPL_ENDOFNAMES), after our JOIN. */
    userlist: [UserlistEvent];
    "nick in use": [NickInUseEvent];
    "nick invalid": [NickInUseEvent];
    "irc error": [IrcErrorEvent];
    "sasl failed": [SaslFailedEvent];
    loggedin: [{ nick: string; account: string }];
    "socket connected": [];
    "socket close": [Error | undefined];
    "socket error": [Error];
    /** Emitted once the client will not reconnect by itself; the argument says whether an error closed it. */
    close: [boolean];
    reconnecting: [ReconnectingEvent];
    raw: [RawEvent];
    debug: [string];
    /** A command irc-framework has no handler for (Twitch's CLEARMSG, USERSTATE...). */
    "unknown command": [UnknownCommandEvent];
  }

  export interface UnknownCommandEvent {
    command: string;
    params: string[];
    tags: Record<string, string>;
    nick: string;
  }

  export class Client extends EventEmitter {
    constructor(options?: ClientOptions);
    readonly connected: boolean;
    readonly user: { nick: string; username: string; gecos: string; away: boolean };
    readonly network: {
      name: string;
      options: Record<string, string | string[]>;
      cap: { isEnabled(cap: string): boolean };
    };
    options: ClientOptions;
    /** Routes each parsed line to irc-framework's handler for its command (which emits the events). */
    command_handler: { dispatch(message: unknown): void };
    /** The underlying connection; end() closes the socket without a QUIT. */
    readonly connection: {
      connected: boolean;
      end(data?: string, hadError?: boolean): void;
      /** Writes one line (without its CRLF) to the socket: every line the client sends passes here. */
      /** Undefined once handed to the socket; false when not connected (the callback then runs at once). */
      write(line: string, callback?: (error?: Error | null) => void): boolean | undefined;
    };
    removeAllListeners(event?: string): this;
    connect(options?: ClientOptions): void;
    requestCap(cap: string | string[]): void;
    /** Sends one raw line; several arguments are joined, the last one prefixed with ":" when needed. */
    raw(...args: (string | number)[]): void;
    rawString(...args: (string | number)[]): string;
    quit(message?: string): void;
    ping(message?: string): void;
    changeNick(nick: string): void;
    say(target: string, message: string, tags?: Record<string, string>): void;
    notice(target: string, message: string, tags?: Record<string, string>): void;
    action(target: string, message: string): void;
    ctcpRequest(target: string, type: string, ...params: string[]): void;
    join(channel: string, key?: string): void;
    part(channel: string, message?: string): void;
    setTopic(channel: string, topic: string): void;
    caseCompare(a: string, b: string): boolean;
    caseLower(value: string): string;

    on<E extends keyof ClientEvents>(event: E, listener: (...args: ClientEvents[E]) => void): this;
    once<E extends keyof ClientEvents>(event: E, listener: (...args: ClientEvents[E]) => void): this;
    off<E extends keyof ClientEvents>(event: E, listener: (...args: ClientEvents[E]) => void): this;
    removeListener<E extends keyof ClientEvents>(event: E, listener: (...args: ClientEvents[E]) => void): this;
  }

  const IRC: { Client: typeof Client };
  export default IRC;
}
