// Rocket.Chat's realtime API: DDP over a WebSocket at /websocket (developer.rocket.chat "Realtime API"). The server
// greets with {server_id}; the client sends `connect` and gets `connected`; `method login` with `{resume: token}`
// answers `result` (or an `error` 403); `sub` to `stream-room-messages` [roomId] answers `ready` (or `nosub` with an
// error) and from then on each new or changed message of the room comes as `changed` with `fields.args[0]` the
// message; `stream-notify-room` ["<roomId>/deleteMessage"] tells deletions. Pings both ways.
import type { WebSocket } from "ws";
import { messageJson, type RcMessage, type RocketChatWorld } from "./world.ts";

interface Subscription {
  name: string;
  param: string;
}

interface Session {
  socket: WebSocket;
  connected: boolean;
  userId: string | undefined;
  subs: Map<string, Subscription>;
}

export class DdpSessions {
  readonly #world: RocketChatWorld;
  readonly #sessions = new Set<Session>();

  constructor(world: RocketChatWorld) {
    this.#world = world;
  }

  /** Logged-in sessions of a user subscribed to a room's messages. */
  subscribed(userId: string, roomId: string): number {
    return [...this.#sessions].filter(
      (s) => s.userId === userId && [...s.subs.values()].some((sub) => sub.param === roomId),
    ).length;
  }

  accept(socket: WebSocket): void {
    const session: Session = { socket, connected: false, userId: undefined, subs: new Map() };
    this.#sessions.add(session);
    socket.on("close", () => this.#sessions.delete(session));
    socket.on("message", (data) => this.#onMessage(session, String(data)));
    socket.send(JSON.stringify({ server_id: "0" }));
  }

  messageChanged(message: RcMessage): void {
    this.#emit("stream-room-messages", message.rid, message.rid, [messageJson(message, "ejson")]);
  }

  messageDeleted(roomId: string, messageId: string): void {
    const event = `${roomId}/deleteMessage`;
    this.#emit("stream-notify-room", event, event, [{ _id: messageId }]);
  }

  /** A fault: sends this frame as is to every logged-in session of the user. */
  sendRaw(userId: string, frame: unknown): void {
    for (const session of this.#sessions) if (session.userId === userId) session.socket.send(JSON.stringify(frame));
  }

  /** Cuts every connection (a network failure); returns how many there were. */
  drop(): number {
    const count = this.#sessions.size;
    for (const session of this.#sessions) session.socket.terminate();
    this.#sessions.clear();
    return count;
  }

  #emit(collection: string, param: string, eventName: string, args: unknown[]): void {
    for (const session of this.#sessions) {
      for (const [id, sub] of session.subs) {
        if (sub.name !== collection || sub.param !== param) continue;
        session.socket.send(JSON.stringify({ msg: "changed", collection, id, fields: { eventName, args } }));
      }
    }
  }

  #onMessage(session: Session, raw: string): void {
    let frame: { msg?: unknown; id?: unknown; method?: unknown; name?: unknown; params?: unknown };
    try {
      frame = JSON.parse(raw) as typeof frame;
    } catch {
      return;
    }
    const send = (value: unknown) => session.socket.send(JSON.stringify(value));
    const id = typeof frame.id === "string" ? frame.id : "";
    const params = Array.isArray(frame.params) ? frame.params : [];
    if (frame.msg === "connect") {
      session.connected = true;
      send({ msg: "connected", session: this.#world.newId() });
      return;
    }
    if (!session.connected) {
      send({ msg: "error", reason: "Must connect first" });
      return;
    }
    switch (frame.msg) {
      case "ping":
        send(id === "" ? { msg: "pong" } : { msg: "pong", id });
        return;
      case "pong":
        return;
      case "method":
        send(this.#method(session, id, frame.method, params));
        if (frame.method === "login") send({ msg: "updated", methods: [id] });
        return;
      case "sub":
        send(this.#subscribe(session, id, frame.name, params));
        return;
      case "unsub":
        session.subs.delete(id);
        send({ msg: "nosub", id });
        return;
    }
  }

  #method(session: Session, id: string, method: unknown, params: unknown[]): Record<string, unknown> {
    if (method !== "login") {
      return {
        msg: "result",
        id,
        error: {
          isClientSafe: true,
          error: 404,
          reason: `Method '${String(method)}' not found`,
          errorType: "Meteor.Error",
        },
      };
    }
    const resume = (params[0] as { resume?: unknown } | undefined)?.resume;
    const userId = typeof resume === "string" ? this.#world.tokens.get(resume) : undefined;
    if (userId === undefined) {
      return {
        msg: "result",
        id,
        error: {
          isClientSafe: true,
          error: 403,
          reason: "You've been logged out by the server. Please log in again.",
          message: "You've been logged out by the server. Please log in again. [403]",
          errorType: "Meteor.Error",
        },
      };
    }
    session.userId = userId;
    return {
      msg: "result",
      id,
      result: { id: userId, token: resume, tokenExpires: { $date: Date.now() + 90 * 86_400_000 }, type: "resume" },
    };
  }

  #subscribe(session: Session, id: string, name: unknown, params: unknown[]): Record<string, unknown> {
    const param = typeof params[0] === "string" ? params[0] : "";
    const refuse = (reason: string) => ({
      msg: "nosub",
      id,
      error: {
        isClientSafe: true,
        error: "error-not-allowed",
        reason,
        message: `${reason} [error-not-allowed]`,
        errorType: "Meteor.Error",
      },
    });
    if (session.userId === undefined) return refuse("Not allowed");
    const roomId = name === "stream-notify-room" ? (param.split("/")[0] ?? "") : param;
    if (name !== "stream-room-messages" && name !== "stream-notify-room")
      return refuse(`Unknown publication ${String(name)}`);
    const room = this.#world.rooms.get(roomId);
    if (room === undefined || (room.t === "p" && !room.members.has(session.userId))) return refuse("Not allowed");
    session.subs.set(id, { name, param });
    return { msg: "ready", subs: [id] };
  }
}
