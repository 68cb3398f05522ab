// The Discord gateway (API v10, JSON encoding, no compression): Hello, Identify (token and intents checked, READY
// then GUILD_CREATE), Heartbeat -> Heartbeat ACK, Resume (missed events replayed, then RESUMED; op 9 for an unknown
// session), dispatches filtered by the session's intents (message content blanked without MESSAGE_CONTENT), and the
// gateway's close codes for what a client gets wrong.
import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import type { DiscordWorld, MessageObject } from "./model.ts";
import { snowflake } from "./snowflake.ts";

export const Op = {
  dispatch: 0,
  heartbeat: 1,
  identify: 2,
  presenceUpdate: 3,
  voiceStateUpdate: 4,
  resume: 6,
  reconnect: 7,
  requestGuildMembers: 8,
  invalidSession: 9,
  hello: 10,
  heartbeatAck: 11,
} as const;

export const Intent = {
  guilds: 1 << 0,
  guildMembers: 1 << 1,
  guildPresences: 1 << 8,
  guildMessages: 1 << 9,
  guildMessageTyping: 1 << 11,
  messageContent: 1 << 15,
} as const;

const PRIVILEGED = Intent.guildMembers | Intent.guildPresences | Intent.messageContent;

/** The intent a dispatch needs (events not listed are sent to every session). */
const EVENT_INTENT: Record<string, number> = {
  GUILD_CREATE: Intent.guilds,
  CHANNEL_CREATE: Intent.guilds,
  GUILD_MEMBER_ADD: Intent.guildMembers,
  GUILD_MEMBER_REMOVE: Intent.guildMembers,
  GUILD_MEMBER_UPDATE: Intent.guildMembers,
  MESSAGE_CREATE: Intent.guildMessages,
  MESSAGE_UPDATE: Intent.guildMessages,
  MESSAGE_DELETE: Intent.guildMessages,
  MESSAGE_DELETE_BULK: Intent.guildMessages,
  TYPING_START: Intent.guildMessageTyping,
};

export const HEARTBEAT_INTERVAL_MS = 41_250;
/** Events kept per session for RESUME. */
const REPLAY_LIMIT = 1000;

interface Session {
  id: string;
  intents: number;
  seq: number;
  /** Dispatches sent (or due while the socket was gone), for replay on RESUME. */
  log: { s: number; t: string; d: unknown }[];
  socket: WebSocket | undefined;
}

export interface GatewayOptions {
  world: DiscordWorld;
  token: () => string;
  /** Whether the application may use the privileged intents (developer portal switches); else close 4014. */
  privilegedIntents: () => boolean;
  /** ws://127.0.0.1:port, given to clients in READY as resume_gateway_url. */
  url: () => string;
  log: (line: string) => void;
}

export class DiscordGateway {
  readonly #options: GatewayOptions;
  readonly #sessions = new Map<string, Session>();
  readonly #sockets = new Set<WebSocket>();

  constructor(options: GatewayOptions) {
    this.#options = options;
  }

  /** Sockets of identified (or resumed) sessions. */
  get connectedSessions(): number {
    return [...this.#sessions.values()].filter((s) => s.socket !== undefined).length;
  }

  accept(socket: WebSocket, request: IncomingMessage): void {
    const query = new URL(request.url ?? "/", "ws://x").searchParams;
    this.#sockets.add(socket);
    socket.on("close", (code) => {
      this.#sockets.delete(socket);
      for (const session of this.#sessions.values()) {
        if (session.socket !== socket) continue;
        session.socket = undefined;
        // A client closing with 1000 or 1001 ends its session; any other close leaves it resumable.
        if (code === 1000 || code === 1001) this.#sessions.delete(session.id);
      }
    });
    socket.on("error", () => {});
    if (query.get("encoding") === "etf") {
      socket.close(4002, "Decode error."); // the fake speaks JSON only
      return;
    }
    if (query.has("compress")) {
      socket.close(4002, "Decode error.");
      return;
    }
    this.#send(socket, { op: Op.hello, d: { heartbeat_interval: HEARTBEAT_INTERVAL_MS }, s: null, t: null });
    let session: Session | undefined;
    socket.on("message", (data, isBinary) => {
      let payload: { op?: unknown; d?: unknown };
      try {
        if (isBinary) throw new Error("binary frame");
        payload = JSON.parse(data.toString()) as { op?: unknown; d?: unknown };
      } catch {
        socket.close(4002, "Error while decoding payload.");
        return;
      }
      switch (payload.op) {
        case Op.heartbeat:
          this.#send(socket, { op: Op.heartbeatAck, d: null, s: null, t: null });
          return;
        case Op.identify:
          if (session) {
            socket.close(4005, "Already authenticated.");
            return;
          }
          session = this.#identify(socket, payload.d as IdentifyData);
          return;
        case Op.resume:
          session = this.#resume(socket, payload.d as ResumeData);
          return;
        case Op.presenceUpdate:
        case Op.voiceStateUpdate:
        case Op.requestGuildMembers:
          if (!session) socket.close(4003, "Not authenticated.");
          return;
        default:
          this.#options.log(`gateway: unknown opcode ${String(payload.op)}`);
          socket.close(4001, "Unknown opcode.");
      }
    });
  }

  #identify(socket: WebSocket, data: IdentifyData): Session | undefined {
    if (stripBot(data?.token) !== this.#options.token()) {
      socket.close(4004, "Authentication failed.");
      return undefined;
    }
    const intents = Number(data.intents);
    if (!Number.isInteger(intents) || intents < 0 || intents >= 1 << 26) {
      socket.close(4013, "Invalid intent(s).");
      return undefined;
    }
    if (intents & PRIVILEGED && !this.#options.privilegedIntents()) {
      socket.close(4014, "Disallowed intent(s).");
      return undefined;
    }
    const world = this.#options.world;
    const session: Session = { id: snowflake(), intents, seq: 0, log: [], socket };
    this.#sessions.set(session.id, session);
    this.#dispatchTo(session, "READY", {
      v: 10,
      user: world.bot,
      guilds: [{ id: world.guildId, unavailable: true }],
      session_id: session.id,
      resume_gateway_url: this.#options.url(),
      shard: data.shard ?? [0, 1],
      application: { id: world.applicationId, flags: 0 },
      user_settings: {},
      private_channels: [],
      presences: [],
      relationships: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
      auth: {},
      _trace: ['["switchboard-discord-fake"]'],
    });
    this.#dispatchTo(session, "GUILD_CREATE", world.guildCreatePayload());
    return session;
  }

  #resume(socket: WebSocket, data: ResumeData): Session | undefined {
    const session = this.#sessions.get(String(data?.session_id));
    if (stripBot(data?.token) !== this.#options.token()) {
      socket.close(4004, "Authentication failed.");
      return undefined;
    }
    if (session === undefined) {
      this.#send(socket, { op: Op.invalidSession, d: false, s: null, t: null });
      return undefined;
    }
    session.socket?.terminate();
    session.socket = socket;
    for (const event of session.log) {
      if (event.s > Number(data.seq)) this.#send(socket, { op: Op.dispatch, ...event });
    }
    this.#dispatchTo(session, "RESUMED", null);
    return session;
  }

  /** Sends an event to every session whose intents allow it. */
  dispatch(event: string, data: unknown): void {
    const needs = EVENT_INTENT[event] ?? 0;
    for (const session of this.#sessions.values()) {
      if (needs !== 0 && (session.intents & needs) === 0) continue;
      this.#dispatchTo(session, event, this.#forSession(session, event, data));
    }
  }

  /** A fault: sends this dispatch, whatever its data, to every session (no intent filtering, no rewriting). */
  dispatchRaw(event: string, data: unknown): void {
    for (const session of this.#sessions.values()) this.#dispatchTo(session, event, data);
  }

  /** Without MESSAGE_CONTENT a bot gets messages with empty content, unless it is mentioned or wrote them. */
  #forSession(session: Session, event: string, data: unknown): unknown {
    if (event !== "MESSAGE_CREATE" && event !== "MESSAGE_UPDATE") return data;
    if (session.intents & Intent.messageContent) return data;
    const message = data as MessageObject;
    const bot = this.#options.world.bot.id;
    if (message.author?.id === bot || message.mentions?.some((u) => u.id === bot)) return data;
    return { ...message, content: "", embeds: [], attachments: [], components: [] };
  }

  #dispatchTo(session: Session, t: string, d: unknown): void {
    session.seq++;
    const event = { s: session.seq, t, d };
    session.log.push(event);
    if (session.log.length > REPLAY_LIMIT) session.log.shift();
    if (session.socket) this.#send(session.socket, { op: Op.dispatch, ...event });
  }

  #send(socket: WebSocket, payload: unknown): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(payload));
  }

  /**
   * Cuts every client connection as a network failure would (no close frame). Sessions stay resumable unless
   * `invalidateSessions`, in which case a RESUME gets op 9 and the client identifies again.
   */
  drop(options: { invalidateSessions?: boolean } = {}): number {
    const count = this.#sockets.size;
    for (const socket of this.#sockets) socket.terminate();
    if (options.invalidateSessions) this.#sessions.clear();
    return count;
  }

  /** Asks every connected client to reconnect (op 7), as Discord does before moving a session. */
  requestReconnect(): void {
    for (const socket of this.#sockets) this.#send(socket, { op: Op.reconnect, d: null, s: null, t: null });
  }

  close(): void {
    for (const socket of this.#sockets) socket.terminate();
    this.#sessions.clear();
  }
}

interface IdentifyData {
  token?: unknown;
  intents?: unknown;
  shard?: [number, number];
}

interface ResumeData {
  token?: unknown;
  session_id?: unknown;
  seq?: unknown;
}

function stripBot(token: unknown): string {
  return typeof token === "string" ? token.replace(/^Bot /, "") : "";
}
