// A /sync answer as the account reads it, decoded from JSON it does not trust: the joined and left rooms, each
// room's state and timeline entries, and each entry as a room event with a string type, sender and event id and an
// object content. An entry that is not such an event is malformed (skipped with a log line by the connection).
import { arrayOf, objectOf, stringOf } from "../json-fields.ts";
import type { RoomEvent } from "./inbound.ts";

interface SyncRoomEntries {
  roomId: string;
  state: readonly unknown[];
  timeline: readonly unknown[];
}

export interface ReadSync {
  nextBatch: string;
  joined: SyncRoomEntries[];
  left: string[];
}

/** The parts of a /sync answer the account uses, or why it cannot be read (then its cursor is not trusted either). */
export function readSync(value: unknown): ReadSync | string {
  const response = objectOf(value);
  const nextBatch = stringOf(response?.next_batch);
  if (response === undefined || !nextBatch) return "the /sync answer has no next_batch";
  const rooms = objectOf(response.rooms);
  const joined = Object.entries(objectOf(rooms?.join) ?? {}).map(([roomId, room]) => ({
    roomId,
    state: arrayOf(objectOf(objectOf(room)?.state)?.events) ?? [],
    timeline: arrayOf(objectOf(objectOf(room)?.timeline)?.events) ?? [],
  }));
  return { nextBatch, joined, left: Object.keys(objectOf(rooms?.leave) ?? {}) };
}

/** A room event, or why it cannot be one. */
export function readRoomEvent(value: unknown): RoomEvent | string {
  const raw = objectOf(value);
  if (raw === undefined) return "the event is not an object";
  const type = stringOf(raw.type);
  const sender = stringOf(raw.sender);
  const eventId = stringOf(raw.event_id);
  const content = objectOf(raw.content);
  if (type === undefined || sender === undefined || eventId === undefined) {
    return "the event has no string type, sender or event_id";
  }
  if (content === undefined) return "the event's content is not an object";
  const event: RoomEvent = { type, event_id: eventId, sender, content };
  const stateKey = stringOf(raw.state_key);
  if (stateKey !== undefined) event.state_key = stateKey;
  const redacts = stringOf(raw.redacts);
  if (redacts !== undefined) event.redacts = redacts;
  return event;
}
