// A human on a real homeserver, for tests: plain Client-Server API calls with fetch (no SDK, so what the test does
// is exactly what the wire carries), and a reader of a room's timeline to see what the bridge posted.
import { waitUntil } from "../wait.ts";

export interface TimelineEvent {
  event_id: string;
  room_id: string;
  sender: string;
  type: string;
  content: Record<string, unknown>;
  redacts?: string;
}

export interface SynapseUser {
  readonly userId: string;
  readonly accessToken: string;
  setDisplayName(name: string): Promise<void>;
  /** Creates a public room with the alias #<alias>:<server>; resolves with the room id. */
  createRoom(alias: string): Promise<string>;
  join(roomIdOrAlias: string): Promise<string>;
  /** Sends an m.room.message; resolves with the event id. */
  send(roomId: string, content: Record<string, unknown>): Promise<string>;
  say(roomId: string, text: string): Promise<string>;
  emote(roomId: string, text: string): Promise<string>;
  edit(roomId: string, eventId: string, text: string): Promise<string>;
  reply(roomId: string, eventId: string, text: string): Promise<string>;
  redact(roomId: string, eventId: string): Promise<string>;
  /** The room's latest events, oldest first (what a client scrolling back would see). */
  timeline(roomId: string, limit?: number): Promise<TimelineEvent[]>;
  /** Waits for an event in the room that matches. */
  waitForEvent(roomId: string, matches: (event: TimelineEvent) => boolean, timeoutMs?: number): Promise<TimelineEvent>;
}

export function synapseUser(baseUrl: string, userId: string, accessToken: string): SynapseUser {
  let txn = 0;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}/_matrix/client/v3${path}`, {
      method,
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const room = (roomId: string) => `/rooms/${encodeURIComponent(roomId)}`;
  const nextTxn = () => `t${Date.now()}.${txn++}`;
  const send = async (roomId: string, content: Record<string, unknown>) =>
    String((await call("PUT", `${room(roomId)}/send/m.room.message/${nextTxn()}`, content)).event_id);
  const timeline = async (roomId: string, limit = 100) => {
    const page = await call("GET", `${room(roomId)}/messages?dir=b&limit=${limit}`);
    return (page.chunk as TimelineEvent[]).map((event) => ({ ...event, room_id: roomId })).reverse();
  };
  return {
    userId,
    accessToken,
    async setDisplayName(name) {
      await call("PUT", `/profile/${encodeURIComponent(userId)}/displayname`, { displayname: name });
    },
    async createRoom(alias) {
      return String((await call("POST", "/createRoom", { room_alias_name: alias, preset: "public_chat" })).room_id);
    },
    async join(roomIdOrAlias) {
      return String((await call("POST", `/join/${encodeURIComponent(roomIdOrAlias)}`, {})).room_id);
    },
    send,
    say: (roomId, text) => send(roomId, { msgtype: "m.text", body: text }),
    emote: (roomId, text) => send(roomId, { msgtype: "m.emote", body: text }),
    edit: (roomId, eventId, text) =>
      send(roomId, {
        msgtype: "m.text",
        body: `* ${text}`,
        "m.new_content": { msgtype: "m.text", body: text },
        "m.relates_to": { rel_type: "m.replace", event_id: eventId },
      }),
    reply: (roomId, eventId, text) =>
      send(roomId, { msgtype: "m.text", body: text, "m.relates_to": { "m.in_reply_to": { event_id: eventId } } }),
    async redact(roomId, eventId) {
      const path = `${room(roomId)}/redact/${encodeURIComponent(eventId)}/${nextTxn()}`;
      return String((await call("PUT", path, { reason: "test" })).event_id);
    },
    timeline,
    waitForEvent: (roomId, matches, timeoutMs = 10_000) =>
      waitUntil(async () => (await timeline(roomId)).find(matches), {
        timeoutMs,
        intervalMs: 50,
        what: `an event in ${roomId}`,
      }),
  };
}
