// Mattermost's WebSocket API (/api/v4/websocket, developers.mattermost.com "WebSocket API"): the client sends an
// `authentication_challenge` with its token and gets `{status:"OK", seq_reply}`, then the server's `hello` (seq 0)
// and events numbered from there (`posted`, `post_edited`, `post_deleted`, `user_added`...) for the channels the user
// is in, each post as a JSON string in `data.post`. Actions (`ping`, ...) are answered with their seq_reply.
import type { WebSocket } from "ws";
import type { MattermostWorld } from "./world.ts";

interface Session {
  socket: WebSocket;
  userId: string | undefined;
  seq: number;
  connectionId: string;
}

export class MattermostSockets {
  readonly #world: MattermostWorld;
  readonly #sessions = new Set<Session>();
  /** A fault: every event frame passes through this before it is sent (a proxy or server that rewrites them). */
  rewrite: ((frame: Record<string, unknown>) => unknown) | undefined;

  constructor(world: MattermostWorld) {
    this.#world = world;
  }

  /** Authenticated connections of a user. */
  connections(userId: string): number {
    return [...this.#sessions].filter((session) => session.userId === userId).length;
  }

  accept(socket: WebSocket, headerToken: string | undefined): void {
    const session: Session = { socket, userId: undefined, seq: 0, connectionId: this.#world.newId() };
    this.#sessions.add(session);
    socket.on("close", () => this.#sessions.delete(session));
    socket.on("message", (data) => this.#onMessage(session, String(data)));
    // A token in the upgrade's Authorization header authenticates at once.
    if (headerToken !== undefined) this.#authenticate(session, headerToken);
  }

  /** Sends an event to every authenticated connection of the given users. */
  broadcast(userIds: Iterable<string>, event: string, data: Record<string, unknown>, channelId = ""): void {
    const wanted = new Set(userIds);
    for (const session of this.#sessions) {
      if (session.userId === undefined || !wanted.has(session.userId)) continue;
      const broadcast = {
        omit_users: null,
        user_id: "",
        channel_id: channelId,
        team_id: "",
        connection_id: "",
        omit_connection_id: "",
      };
      const frame = { event, data, broadcast, seq: session.seq++ };
      session.socket.send(JSON.stringify(this.rewrite === undefined ? frame : this.rewrite(frame)));
    }
  }

  /** A fault: sends this frame, whatever it is, to every authenticated connection of the user. */
  sendRaw(userId: string, frame: unknown): void {
    for (const session of this.#sessions) {
      if (session.userId === userId) session.socket.send(JSON.stringify(frame));
    }
  }

  /** Cuts every connection without a close handshake (a network failure); returns how many there were. */
  drop(): number {
    const count = this.#sessions.size;
    for (const session of this.#sessions) session.socket.terminate();
    this.#sessions.clear();
    return count;
  }

  #onMessage(session: Session, raw: string): void {
    let message: { seq?: unknown; action?: unknown; data?: { token?: unknown } };
    try {
      message = JSON.parse(raw) as typeof message;
    } catch {
      return;
    }
    const seq = typeof message.seq === "number" ? message.seq : 0;
    const reply = (fields: Record<string, unknown>) =>
      session.socket.send(JSON.stringify({ ...fields, seq_reply: seq }));
    if (message.action === "authentication_challenge") {
      const token = typeof message.data?.token === "string" ? message.data.token : "";
      if (!this.#authenticate(session, token, reply)) {
        reply({ status: "FAIL", error: { id: "api.web_socket_router.not_authenticated.app_error" } });
      }
      return;
    }
    if (session.userId === undefined) {
      reply({ status: "FAIL", error: { id: "api.web_socket_router.not_authenticated.app_error" } });
      return;
    }
    if (message.action === "ping") {
      reply({ status: "OK", data: { text: "pong", version: "10.0.0", server_time: Date.now() } });
      return;
    }
    reply({ status: "OK" });
  }

  #authenticate(session: Session, token: string, reply?: (fields: Record<string, unknown>) => void): boolean {
    const userId = this.#world.sessions.get(token);
    if (userId === undefined) return false;
    session.userId = userId;
    reply?.({ status: "OK" });
    const hello = { connection_id: session.connectionId, server_version: "10.0.0", server_hostname: "simulator" };
    session.socket.send(
      JSON.stringify({ event: "hello", data: hello, broadcast: { user_id: userId }, seq: session.seq++ }),
    );
    return true;
  }
}
