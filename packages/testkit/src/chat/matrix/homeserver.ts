// The state of the fake Matrix homeserver: users and their access tokens, rooms, one ordered event stream, and the
// /sync answers computed from it (initial and incremental, held open until an event arrives). Pure state, no HTTP:
// matrix/routes.ts speaks the Client-Server API over it, and chat/matrix.ts gives tests a handle on it.
import { randomBytes } from "node:crypto";

/** A client event as the Client-Server API shows it (`room_id` is added outside /sync). */
export interface ClientEvent {
  type: string;
  content: Record<string, unknown>;
  sender: string;
  event_id: string;
  origin_server_ts: number;
  state_key?: string;
  redacts?: string;
  unsigned?: Record<string, unknown>;
}

/** One event of the stream: its position, its room, who sent it with which access token and transaction id. */
export interface StoredEvent {
  position: number;
  roomId: string;
  event: ClientEvent;
  /** Access token and txn id of the request that sent it (the sender's own /sync shows `transaction_id`). */
  token?: string;
  txnId?: string;
  redactedBy?: ClientEvent;
  /** A fault a test injected: clients are shown this, whatever it is, in place of the event. */
  raw?: unknown;
}

export interface UserRecord {
  userId: string;
  password: string;
  displayName: string;
  avatarUrl: string;
  filters: Record<string, unknown>[];
}

interface RoomRecord {
  roomId: string;
  alias: string | undefined;
  /** Current state, keyed `type\u0000state_key`. */
  state: Map<string, StoredEvent>;
  events: StoredEvent[];
}

export interface Session {
  userId: string;
  deviceId: string;
}

/** What a sync waits for: an event visible to this user after `since`. */
interface SyncWaiter {
  userId: string;
  wake: () => void;
}

export const randomId = (bytes = 18) => randomBytes(bytes).toString("base64url");

/** Synapse's default timeline limit of a /sync without a filter saying otherwise. */
const DEFAULT_TIMELINE_LIMIT = 10;

export class Homeserver {
  readonly serverName: string;
  readonly users = new Map<string, UserRecord>();
  readonly sessions = new Map<string, Session>();
  readonly #rooms = new Map<string, RoomRecord>();
  readonly #aliases = new Map<string, string>();
  readonly #byEventId = new Map<string, StoredEvent>();
  readonly #waiters = new Set<SyncWaiter>();
  /** Every event, in stream order; position n is at index n - 1. */
  readonly stream: StoredEvent[] = [];
  /** Called for each new event (the test handle records them). */
  onEvent: (stored: StoredEvent) => void = () => {};

  constructor(serverName: string) {
    this.serverName = serverName;
  }

  userIdFor(localpartOrId: string): string {
    return localpartOrId.startsWith("@") ? localpartOrId : `@${localpartOrId}:${this.serverName}`;
  }

  registerUser(localpart: string, password: string, displayName = localpart): UserRecord {
    const userId = this.userIdFor(localpart);
    const user: UserRecord = { userId, password, displayName, avatarUrl: "", filters: [] };
    this.users.set(userId, user);
    return user;
  }

  /** A new access token (and device) for the user, as a login gives. */
  newSession(userId: string, deviceId = randomId(6).toUpperCase()): string {
    const token = `syt_${randomId(24)}`;
    this.sessions.set(token, { userId, deviceId });
    return token;
  }

  get position(): number {
    return this.stream.length;
  }

  roomIdOf(roomIdOrAlias: string): string | undefined {
    if (roomIdOrAlias.startsWith("#")) return this.#aliases.get(roomIdOrAlias);
    return this.#rooms.has(roomIdOrAlias) ? roomIdOrAlias : undefined;
  }

  hasRoom(roomId: string): boolean {
    return this.#rooms.has(roomId);
  }

  aliasOf(roomId: string): string | undefined {
    return this.#rooms.get(roomId)?.alias;
  }

  isMember(roomId: string, userId: string): boolean {
    const member = this.#rooms.get(roomId)?.state.get(`m.room.member\u0000${userId}`);
    return member?.event.content.membership === "join";
  }

  members(roomId: string): string[] {
    const room = this.#rooms.get(roomId);
    if (room === undefined) return [];
    return [...room.state.values()]
      .filter((s) => s.event.type === "m.room.member" && s.event.content.membership === "join")
      .map((s) => s.event.state_key as string);
  }

  /** Who created the room (power level 100: may redact anyone's events). */
  roomCreator(roomId: string): string | undefined {
    return this.#rooms.get(roomId)?.state.get("m.room.create\u0000")?.event.sender;
  }

  event(eventId: string): StoredEvent | undefined {
    return this.#byEventId.get(eventId);
  }

  /** The events a public room starts with, as Synapse creates them (room version 10). */
  createRoom(creator: string, options: { alias?: string; name?: string } = {}): string {
    const roomId = `!${randomId(12)}:${this.serverName}`;
    const alias = options.alias === undefined ? undefined : this.#fullAlias(options.alias);
    if (alias !== undefined && this.#aliases.has(alias)) throw new Error(`alias ${alias} is taken`);
    this.#rooms.set(roomId, { roomId, alias, state: new Map(), events: [] });
    if (alias !== undefined) this.#aliases.set(alias, roomId);
    this.append(roomId, creator, { type: "m.room.create", state_key: "", content: { creator, room_version: "10" } });
    this.join(roomId, creator);
    this.append(roomId, creator, {
      type: "m.room.power_levels",
      state_key: "",
      content: {
        users: { [creator]: 100 },
        users_default: 0,
        events_default: 0,
        state_default: 50,
        ban: 50,
        kick: 50,
        redact: 50,
        invite: 0,
      },
    });
    this.append(roomId, creator, { type: "m.room.join_rules", state_key: "", content: { join_rule: "public" } });
    this.append(roomId, creator, {
      type: "m.room.history_visibility",
      state_key: "",
      content: { history_visibility: "shared" },
    });
    if (alias !== undefined) {
      this.append(roomId, creator, { type: "m.room.canonical_alias", state_key: "", content: { alias } });
    }
    if (options.name !== undefined) {
      this.append(roomId, creator, { type: "m.room.name", state_key: "", content: { name: options.name } });
    }
    return roomId;
  }

  #fullAlias(alias: string): string {
    const local = alias.replace(/^#/, "");
    return local.includes(":") ? `#${local}` : `#${local}:${this.serverName}`;
  }

  /** Joins (a no-op when already joined, as on Synapse); the member event carries the profile. */
  join(roomId: string, userId: string): void {
    if (this.isMember(roomId, userId)) return;
    const user = this.users.get(userId);
    const content: Record<string, unknown> = { membership: "join", displayname: user?.displayName ?? userId };
    if (user?.avatarUrl) content.avatar_url = user.avatarUrl;
    this.append(roomId, userId, { type: "m.room.member", state_key: userId, content });
  }

  /** Appends an event to a room and the stream, and wakes the syncs that can see it. */
  append(
    roomId: string,
    sender: string,
    fields: { type: string; content: Record<string, unknown>; state_key?: string; redacts?: string },
    origin: { token?: string; txnId?: string } = {},
  ): StoredEvent {
    const room = this.#rooms.get(roomId);
    if (room === undefined) throw new Error(`no room ${roomId}`);
    const event: ClientEvent = {
      type: fields.type,
      content: fields.content,
      sender,
      event_id: `$${randomId(32)}`,
      origin_server_ts: Date.now(),
      ...(fields.state_key === undefined ? {} : { state_key: fields.state_key }),
      ...(fields.redacts === undefined ? {} : { redacts: fields.redacts }),
    };
    const stored: StoredEvent = { position: this.stream.length + 1, roomId, event, ...origin };
    this.stream.push(stored);
    room.events.push(stored);
    this.#byEventId.set(event.event_id, stored);
    if (fields.state_key !== undefined) room.state.set(`${fields.type}\u0000${fields.state_key}`, stored);
    if (fields.type === "m.room.redaction" && fields.redacts !== undefined) {
      const target = this.#byEventId.get(fields.redacts);
      if (target !== undefined) target.redactedBy = event;
    }
    this.onEvent(stored);
    for (const waiter of this.#waiters) {
      if (this.isMember(roomId, waiter.userId) || event.state_key === waiter.userId) waiter.wake();
    }
    return stored;
  }

  /** A fault: a timeline entry of the room that clients see as `raw` (null, a sender that is a number...). */
  appendRaw(roomId: string, raw: unknown): StoredEvent {
    const stored = this.append(roomId, "@fault:simulator", { type: "m.room.message", content: {} });
    stored.raw = raw;
    return stored;
  }

  /** The event as `token`'s /sync shows it: redacted content stripped, age, and our own transaction id. */
  view(stored: StoredEvent, token: string | undefined, withRoomId = false): Record<string, unknown> {
    if (Object.hasOwn(stored, "raw")) return stored.raw as Record<string, unknown>;
    const unsigned: Record<string, unknown> = { age: Math.max(0, Date.now() - stored.event.origin_server_ts) };
    if (stored.txnId !== undefined && token !== undefined && stored.token === token) {
      unsigned.transaction_id = stored.txnId;
    }
    let content = stored.event.content;
    if (stored.redactedBy !== undefined) {
      unsigned.redacted_because = stored.redactedBy;
      content = stored.event.type === "m.room.member" ? { membership: content.membership } : {};
    }
    return {
      ...stored.event,
      content,
      unsigned,
      ...(withRoomId ? { room_id: stored.roomId } : {}),
    };
  }

  /** Rooms the user is joined to at stream position `at` (its latest membership event at or before it). */
  #joinedRooms(userId: string): RoomRecord[] {
    return [...this.#rooms.values()].filter((room) => this.isMember(room.roomId, userId));
  }

  /**
   * One /sync answer for `since` (undefined: an initial sync), or undefined when an incremental sync has nothing new
   * yet (the caller holds the request and asks again when woken).
   */
  sync(session: Session, token: string, since: number | undefined, timelineLimit = DEFAULT_TIMELINE_LIMIT) {
    const join: Record<string, unknown> = {};
    const leave: Record<string, unknown> = {};
    for (const room of this.#rooms.values()) {
      const member = room.state.get(`m.room.member\u0000${session.userId}`);
      if (member === undefined) continue;
      const joined = member.event.content.membership === "join";
      const fresh = since === undefined || member.position > since;
      // A room the user joined since `since` comes with its latest events, from before the join too (as Synapse).
      const newEvents = fresh ? room.events : room.events.filter((s) => s.position > (since ?? 0));
      if (!joined) {
        if (since !== undefined && member.position > since) {
          leave[room.roomId] = {
            timeline: { events: [this.view(member, token)], limited: false },
            state: { events: [] },
          };
        }
        continue;
      }
      if (newEvents.length === 0 && !fresh) continue;
      const limited = newEvents.length > timelineLimit;
      const timeline = limited ? newEvents.slice(-timelineLimit) : newEvents;
      const inTimeline = new Set(timeline);
      // A room new to this sync gets its full state (what is not in the timeline); a known one only what the gap skipped.
      const state = fresh || limited ? [...room.state.values()].filter((s) => !inTimeline.has(s)) : [];
      const first = timeline[0]?.position ?? this.position;
      join[room.roomId] = {
        timeline: {
          events: timeline.map((s) => this.view(s, token)),
          limited: limited || (fresh && room.events.length > timeline.length),
          prev_batch: `t${first - 1}`,
        },
        state: { events: state.map((s) => this.view(s, token)) },
        ephemeral: { events: [] },
        account_data: { events: [] },
        unread_notifications: { highlight_count: 0, notification_count: 0 },
        summary: {},
      };
    }
    if (since !== undefined && Object.keys(join).length === 0 && Object.keys(leave).length === 0) return undefined;
    return this.#syncBody(join, leave);
  }

  /** An answer with nothing new (a long poll that timed out). */
  emptySync() {
    return this.#syncBody({}, {});
  }

  #syncBody(join: Record<string, unknown>, leave: Record<string, unknown>) {
    return {
      next_batch: `s${this.position}`,
      rooms: { join, invite: {}, leave, knock: {} },
      account_data: { events: [] },
      presence: { events: [] },
      to_device: { events: [] },
      device_lists: { changed: [], left: [] },
      device_one_time_keys_count: {},
    };
  }

  /** Calls `wake` once an event the user can see is appended; returns the cancel function. */
  waitForEvents(userId: string, wake: () => void): () => void {
    const waiter: SyncWaiter = {
      userId,
      wake: () => {
        this.#waiters.delete(waiter);
        wake();
      },
    };
    this.#waiters.add(waiter);
    return () => this.#waiters.delete(waiter);
  }

  joinedRoomIds(userId: string): string[] {
    return this.#joinedRooms(userId).map((room) => room.roomId);
  }
}
