// The rows one event-loop turn adds to the state file and the queue rows it removes, held in memory until the turn
// commits (or until a statement that must see them runs), then written with few statements (chunked-statements.ts).
// They are written inside the turn's transaction, before its COMMIT: what the turn acknowledges is in the file all
// the same. A message queued and confirmed within the same turn is never written at all.
import type Database from "better-sqlite3";
import { encodeMessage, MESSAGE_FIELDS, type Message } from "../message.ts";
import { ChunkedDelete, ChunkedInsert, type Keep, type RunStatement } from "./chunked-statements.ts";
import type { StoredCopy } from "./state-store.ts";

/**
 * Text held before it is written without waiting for the commit: a burst of large messages is not held twice in
 * memory, and a file that cannot take them (a full disk) fails the turn while it writes, as a single INSERT would.
 */
const MAX_HELD_CHARS = 256 * 1024;

/** The columns of an outbound row, in the order `queue` takes them. */
const OUTBOUND_COLUMNS = ["seq", "account", "channel", "gateway", "message", "copy_of", "edit_of", "reply_to"] as const;

/**
 * A queued message as held: its row's text (encodeMessage), or a snapshot of a message without Extra (its fields are
 * all strings, which nothing changes), encoded only if the row is written. A burst's rows are mostly confirmed within
 * their turn and never written: encoding each when it was queued cost about 0.6 µs per message, for nothing.
 */
type HeldMessage = string | Message;

export type OutboundValues = [
  seq: number,
  account: string,
  channel: string,
  gateway: string,
  message: HeldMessage,
  copyOf: string | null,
  editOf: string | null,
  replyTo: string | null,
];

const STRING_FIELDS = MESSAGE_FIELDS.filter((field) => field !== "Extra");

/** Characters of the 13 keys, quotes, colons, commas and braces of an encoded message without Extra. */
const ENCODED_OVERHEAD = 160;

/**
 * The text a held message stands for, for MAX_HELD_CHARS: its length once encoded, or for a snapshot the length of its
 * fields (what the row will hold but for escapes), without encoding it.
 */
function heldChars(message: HeldMessage): number {
  if (typeof message === "string") return message.length;
  // The fields one by one (0.02-0.03 µs; a loop over their names took 0.14-0.16); one that is not a string makes the sum NaN,
  // and the loop then counts it as none.
  const chars =
    ENCODED_OVERHEAD +
    message.text?.length +
    message.channel?.length +
    message.username?.length +
    message.userid?.length +
    message.avatar?.length +
    message.account?.length +
    message.event?.length +
    message.protocol?.length +
    message.gateway?.length +
    message.parent_id?.length +
    message.timestamp?.length +
    message.id?.length;
  return Number.isNaN(chars) ? heldCharsOfAnyMessage(message) : chars;
}

/** heldChars of a message whose fields are not all strings. */
function heldCharsOfAnyMessage(message: Message): number {
  let chars = ENCODED_OVERHEAD;
  for (const field of STRING_FIELDS) {
    const value = message[field];
    if (typeof value === "string") chars += value.length;
  }
  return chars;
}

/** The row's values as written: the message encoded. */
function encodedRow(row: OutboundValues): OutboundValues {
  const message = row[4];
  if (typeof message === "string") return row;
  const encoded: OutboundValues = [...row];
  encoded[4] = encodeMessage(message);
  return encoded;
}

interface HeldCopies {
  at: number;
  copies: StoredCopy[];
}

/**
 * The held rows of the open turn: new queue rows, the numbers of queue rows to remove, id-map entries and unread
 * rows. The store writes them (write) before the turn's COMMIT, and before any statement that reads or removes rows
 * by number; it forgets them (clear) when the turn is rolled back.
 */
export class TurnRows {
  readonly #insertOutbound: ChunkedInsert;
  readonly #deleteOutbound: ChunkedDelete;
  readonly #saveCopies: ChunkedInsert;
  readonly #appendUnread: ChunkedInsert;
  /**
   * Queue rows by sequence number (in the order they were queued, which is the numbers' order). This map and #copies
   * are made by a turn's first row and dropped when the turn ends, never cleared and kept: V8 links a map's replaced
   * hash tables to their successors, so a long-lived map whose table had reached the old generation (through a quiet
   * spell) kept every later table, and every row they held, alive through the young collections until a full one
   * (common/live-list.ts says more).
   */
  #outbound: Map<number, OutboundValues> | undefined;
  /** Queue rows written before this turn (or earlier in it) to be removed. */
  #dequeued: number[] = [];
  /** Id-map entries by gateway, then key, in the order they were saved (the id map's order). */
  #copies: Map<string, Map<string, HeldCopies>> | undefined;
  #copyCount = 0;
  /** Unread rows, three values each: seq, account, encoded. */
  #unread: (string | number)[] = [];
  #chars = 0;

  constructor(db: Database.Database, keep: Keep) {
    this.#insertOutbound = new ChunkedInsert(db, keep, "INSERT INTO outbound", OUTBOUND_COLUMNS);
    this.#deleteOutbound = new ChunkedDelete(db, keep, "outbound", "seq");
    this.#saveCopies = new ChunkedInsert(db, keep, "INSERT OR REPLACE INTO id_map", ["gateway", "key", "at", "copies"]);
    this.#appendUnread = new ChunkedInsert(db, keep, "INSERT INTO unread", ["seq", "account", "encoded"]);
  }

  get empty(): boolean {
    return (
      (this.#outbound?.size ?? 0) === 0 &&
      this.#dequeued.length === 0 &&
      this.#copyCount === 0 &&
      this.#unread.length === 0
    );
  }

  /** Whether so much text is held that it is to be written now (see MAX_HELD_CHARS). */
  get full(): boolean {
    return this.#chars >= MAX_HELD_CHARS;
  }

  queue(values: OutboundValues): void {
    this.#outbound ??= new Map();
    this.#outbound.set(values[0], values);
    this.#chars += heldChars(values[4]);
  }

  /** Removes a queue row: true when it was held here (never written, so nothing is left to remove from the file). */
  dequeue(seq: number): boolean {
    const held = this.#outbound?.get(seq);
    if (held !== undefined) {
      this.#outbound?.delete(seq);
      this.#chars -= heldChars(held[4]);
      return true;
    }
    this.#dequeued.push(seq);
    return false;
  }

  /** Saves (or replaces, as the last of the turn's saves) the id-map entry of `key`; `copies` becomes the store's. */
  saveCopies(gateway: string, key: string, at: number, copies: StoredCopy[]): void {
    this.#copies ??= new Map();
    let byKey = this.#copies.get(gateway);
    if (byKey === undefined) {
      byKey = new Map();
      this.#copies.set(gateway, byKey);
    }
    // Moved to the end, as INSERT OR REPLACE gives the entry a new place in the id map.
    if (byKey.delete(key)) this.#copyCount--;
    byKey.set(key, { at, copies });
    this.#copyCount++;
  }

  /** The copies of an id-map entry saved in this turn (to be changed in place), or undefined. */
  heldCopies(gateway: string, key: string): StoredCopy[] | undefined {
    return this.#copies?.get(gateway)?.get(key)?.copies;
  }

  appendUnread(seq: number, account: string, encoded: string): void {
    this.#unread.push(seq, account, encoded);
    this.#chars += encoded.length;
  }

  /**
   * Writes everything held, then forgets it. False when a write failed: the turn is then rolled back, and the rest
   * is not written. Removals and new rows never concern the same row (a row removed while held was just forgotten).
   */
  write(run: RunStatement): boolean {
    try {
      return this.#writeAll(run);
    } finally {
      this.clear();
    }
  }

  #writeAll(run: RunStatement): boolean {
    const outbound = this.#outbound;
    if (outbound !== undefined && outbound.size > 0) {
      let values: OutboundValues[number][] = [];
      if (outbound.size === 1) {
        const row = outbound.values().next().value;
        if (row !== undefined) values = encodedRow(row);
      } else for (const row of outbound.values()) values.push(...encodedRow(row));
      if (!this.#insertOutbound.insert(run, values)) return false;
    }
    if (this.#dequeued.length > 0 && !this.#deleteOutbound.delete(run, this.#dequeued)) return false;
    if (this.#copyCount > 0) {
      const values: (string | number)[] = [];
      for (const [gateway, byKey] of this.#copies ?? []) {
        for (const [key, held] of byKey) values.push(gateway, key, held.at, JSON.stringify(held.copies));
      }
      if (!this.#saveCopies.insert(run, values)) return false;
    }
    return this.#unread.length === 0 || this.#appendUnread.insert(run, this.#unread);
  }

  /** Removes queue rows written before, at once (not held: used outside the turns, at start-up). */
  deleteQueued(run: RunStatement, seqs: readonly number[]): boolean {
    return this.#deleteOutbound.delete(run, seqs);
  }

  /** Forgets everything held (written, or its turn rolled back). */
  clear(): void {
    this.#outbound = undefined;
    if (this.#dequeued.length > 0) this.#dequeued = [];
    this.#copies = undefined;
    this.#copyCount = 0;
    if (this.#unread.length > 0) this.#unread = [];
    this.#chars = 0;
  }
}
