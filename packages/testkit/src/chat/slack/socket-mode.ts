// Slack's Socket Mode side (api.slack.com/apis/socket-mode): apps.connections.open hands out a one-time WebSocket URL;
// the connection opens with a `hello`, carries events as `events_api` envelopes that the app acknowledges with their
// envelope_id, and can be asked to reconnect with a `disconnect` message. Slack retries an event that was not
// acknowledged (up to three times, with `retry_attempt`/`retry_reason`), also when no connection was open: so events
// wait here while an app is offline and are delivered when it connects again.
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import type { SlackApp, SlackWorld } from "./world.ts";

const MAX_RETRIES = 3;
/** Slack pings every connection; the client closes one that has not been pinged for 30 s. */
const PING_EVERY_MS = 10_000;

interface Envelope {
  envelope_id: string;
  type: "events_api";
  accepts_response_payload: false;
  retry_attempt: number;
  retry_reason: string;
  payload: Record<string, unknown>;
}

interface AppSessions {
  sockets: Set<WebSocket>;
  /** Sent and not acknowledged yet, by envelope id, with the socket it went to. */
  unacked: Map<string, { envelope: Envelope; socket: WebSocket }>;
  /** Waiting for a connection. */
  pending: Envelope[];
}

export class SocketMode {
  readonly #world: SlackWorld;
  readonly #tickets = new Map<string, SlackApp>();
  readonly #sessions = new Map<string, AppSessions>();
  readonly #acks: string[] = [];
  readonly #pings: NodeJS.Timeout;

  constructor(world: SlackWorld) {
    this.#world = world;
    this.#pings = setInterval(() => {
      for (const session of this.#sessions.values()) for (const socket of session.sockets) socket.ping();
    }, PING_EVERY_MS);
    this.#pings.unref();
  }

  /** Envelope ids the apps acknowledged, in order. */
  get acknowledged(): readonly string[] {
    return this.#acks;
  }

  /** The ticket part of a new connection URL for `app` (apps.connections.open). */
  issueTicket(app: SlackApp): string {
    const ticket = randomUUID();
    this.#tickets.set(ticket, app);
    return ticket;
  }

  openConnections(app: SlackApp): number {
    return this.#session(app).sockets.size;
  }

  /** A WebSocket upgrade on /link: accepted once per ticket, as Slack's URLs are single-use. */
  accept(socket: WebSocket, request: IncomingMessage): void {
    const ticket = new URL(request.url ?? "/", "http://localhost").searchParams.get("ticket") ?? "";
    const app = this.#tickets.get(ticket);
    this.#tickets.delete(ticket);
    if (app === undefined) {
      socket.close(1008, "invalid or used ticket");
      return;
    }
    const session = this.#session(app);
    session.sockets.add(socket);
    socket.send(
      JSON.stringify({
        type: "hello",
        num_connections: session.sockets.size,
        debug_info: { host: "applink-simulator", build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: app.appId },
      }),
    );
    socket.on("message", (data) => this.#onMessage(session, String(data)));
    socket.on("close", () => this.#onClose(session, socket));
    const waiting = session.pending.splice(0);
    for (const envelope of waiting) this.#deliver(session, envelope);
  }

  /** Queues an event for `app`: sent now on an open connection, or when one opens. */
  emit(app: SlackApp, event: unknown): void {
    const envelope: Envelope = {
      envelope_id: randomUUID(),
      type: "events_api",
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: "",
      payload: {
        token: "verification-token-unused-in-socket-mode",
        team_id: this.#world.teamId,
        api_app_id: app.appId,
        event,
        type: "event_callback",
        event_id: this.#world.newId("Ev"),
        event_time: Math.floor(Date.now() / 1000),
        authorizations: [
          {
            enterprise_id: null,
            team_id: this.#world.teamId,
            user_id: app.user.id,
            is_bot: true,
            is_enterprise_install: false,
          },
        ],
        is_ext_shared_channel: false,
      },
    };
    this.#deliver(this.#session(app), envelope);
  }

  /** Sends Slack's `disconnect` (refresh_requested) on every connection: clients open a new one. */
  requestRefresh(): void {
    for (const session of this.#sessions.values()) {
      for (const socket of session.sockets) {
        socket.send(JSON.stringify({ type: "disconnect", reason: "refresh_requested", debug_info: { host: "sim" } }));
      }
    }
  }

  /** Cuts every connection without a close handshake (a network failure); returns how many there were. */
  drop(): number {
    let count = 0;
    for (const session of this.#sessions.values()) {
      for (const socket of session.sockets) {
        socket.terminate();
        count++;
      }
    }
    return count;
  }

  close(): void {
    clearInterval(this.#pings);
    this.drop();
  }

  #session(app: SlackApp): AppSessions {
    let session = this.#sessions.get(app.appId);
    if (!session) {
      session = { sockets: new Set(), unacked: new Map(), pending: [] };
      this.#sessions.set(app.appId, session);
    }
    return session;
  }

  #deliver(session: AppSessions, envelope: Envelope): void {
    const socket = [...session.sockets].find((candidate) => candidate.readyState === candidate.OPEN);
    if (socket === undefined) {
      session.pending.push(envelope);
      return;
    }
    session.unacked.set(envelope.envelope_id, { envelope, socket });
    socket.send(JSON.stringify(envelope));
  }

  #onMessage(session: AppSessions, data: string): void {
    let message: { envelope_id?: unknown };
    try {
      message = JSON.parse(data) as { envelope_id?: unknown };
    } catch {
      return;
    }
    if (typeof message.envelope_id !== "string") return;
    if (session.unacked.delete(message.envelope_id)) this.#acks.push(message.envelope_id);
  }

  /** What the closed connection had not acknowledged is retried on the next one. */
  #onClose(session: AppSessions, socket: WebSocket): void {
    session.sockets.delete(socket);
    for (const [id, sent] of session.unacked) {
      if (sent.socket !== socket) continue;
      session.unacked.delete(id);
      if (sent.envelope.retry_attempt >= MAX_RETRIES) continue;
      const retry = { ...sent.envelope, retry_attempt: sent.envelope.retry_attempt + 1, retry_reason: "timeout" };
      this.#deliver(session, retry);
    }
  }
}
