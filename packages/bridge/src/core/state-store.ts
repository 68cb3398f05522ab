// What the bridge keeps across restarts, behind one seam: the id map (source message -> the ids of its copies),
// each destination's outbound queue, and the unread buffer of each api account. The core alone uses it (protocols
// never see it; the api account gets an UnreadLog, nothing more). One implementation keeps it in a SQLite file
// (sqlite-state-store.ts); NO_STATE keeps nothing, for `StateFile = ""`.
import type { Logger } from "pino";
import type { Message } from "../message.ts";

/** One copy of a source message on a destination channel, as the id map keeps it. */
export interface StoredCopy {
  account: string;
  channel: string;
  /** The destination's id; "" while it is still queued. */
  id: string;
}

/** A message held in a destination's queue, as written before it was acknowledged to its sender. */
export interface StoredDelivery {
  account: string;
  channel: string;
  gateway: string;
  /** The destination's copy, as the router made it (its ids may be filled in when it is replayed, see below). */
  message: Message;
  /** The id-map key of the source message when this copy's id is to be recorded there once it is sent. */
  copyOf?: string;
  /** The id-map key whose copy on this destination gives `message.id` (an edit or delete of a message queued too). */
  editOf?: string;
  /** The id-map key whose copy on this destination gives `message.parent_id` (a reply to a message queued too). */
  replyTo?: string;
}

/** A queued delivery read back at start-up, with its place in the file. */
export interface QueuedRow extends StoredDelivery {
  seq: number;
}

/** Where a confirmed copy's id goes in the id map. */
export interface CopyRecord {
  gateway: string;
  key: string;
  account: string;
  channel: string;
  id: string;
}

/** The unread messages of one api account: what `GET /api/messages` has not returned yet. */
export interface UnreadLog {
  /** What no client had read at the last stop, oldest first (at most the account's Buffer). */
  restore(): string[];
  append(encoded: string): void;
  /** A client read everything appended so far. */
  readAll(): void;
}

export interface StateStore {
  /** The file, for log lines; undefined when nothing is kept. */
  readonly path: string | undefined;
  /**
   * Runs `work` inside the event-loop turn's transaction, with the turn's other work, committed at the end of the
   * turn or at `commit()`: a burst costs one commit. Kept all together or not at all: when `work` throws, nothing of
   * the turn's transaction is kept (and `committed()` rejects). Nested calls join the outer one. A write SQLite
   * refuses (a full disk) is not thrown: the turn's transaction is dropped, `committed()` rejects with a
   * StateWriteError, the failure is logged (at most once a minute) and the next turn writes again.
   */
  atomically<T>(work: () => T): T;
  /**
   * Commits what `atomically` wrote so far in this turn: durable on return. Never throws: false when the state file
   * could not be written (logged), the turn's writes then not being kept.
   */
  commit(): boolean;
  /**
   * Resolves once what `atomically` wrote so far is committed (at the end of the turn at the latest; at once when
   * nothing is pending); rejects when that commit failed. Acknowledge a message to its sender only then.
   */
  committed(): Promise<void>;
  /** Where failed writes are logged (at most once a minute, with SQLite's reason); the bridge sets its logger. */
  reportFailuresTo(logger: Logger): void;
  /** Writes a message into its destination's queue (with the turn's transaction inside `atomically`); returns its sequence number. */
  enqueue(delivery: StoredDelivery): number;
  /**
   * The destination confirmed (or gave up) the message: removes it from the queue and, when given, records the id
   * its copy got, in one transaction. May be written at the end of the turn, with the turn's other settles (a crash
   * before then sends the message again: at least once).
   */
  settle(seq: number, copy?: CopyRecord): void;
  /** Every queued message, in the order they were queued. */
  queued(): QueuedRow[];
  /** Removes queued messages that can no longer be delivered (their destination left the config). */
  discard(seqs: readonly number[]): void;
  /** Records the copies of a new source message (their ids, or "" for those still queued). */
  saveCopies(gateway: string, key: string, copies: readonly StoredCopy[]): void;
  /** The most recent `limit` entries of a gateway's id map, oldest first. */
  loadCopies(gateway: string, limit: number): [key: string, copies: StoredCopy[]][];
  /** The unread buffer of an api account holding at most `capacity` messages. */
  unread(account: string, capacity: number): UnreadLog;
  /**
   * The bridge stops or cuts its queues: from now on, messages the queues let go without sending stay in the file,
   * to be sent after the next start.
   */
  keepQueued(): void;
  close(): void;
}

const WRITTEN: Promise<void> = Promise.resolve();
const NO_UNREAD: UnreadLog = { restore: () => [], append() {}, readAll() {} };

/** `StateFile = ""`: nothing survives the process (Matterbridge's behaviour). */
export const NO_STATE: StateStore = {
  path: undefined,
  atomically: (work) => work(),
  commit: () => true,
  committed: () => WRITTEN,
  reportFailuresTo() {},
  enqueue: () => 0,
  settle() {},
  queued: () => [],
  discard() {},
  saveCopies() {},
  loadCopies: () => [],
  unread: () => NO_UNREAD,
  keepQueued() {},
  close() {},
};
