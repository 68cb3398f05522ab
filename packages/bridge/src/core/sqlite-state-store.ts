// The state store in one SQLite file (better-sqlite3: synchronous). What routing writes goes into the turn's
// transaction (turn-transaction.ts), committed at the end of the turn or when a protocol's receive returns, always
// before the message it concerns is acknowledged. WAL with synchronous = NORMAL: a commit survives a crash of the
// process (kill -9, OOM) at once; after a power loss or an OS crash the last commits before it may be missing, never
// corrupted. Every statement is prepared once. The turn's new rows and the queue rows it removes are held until its
// commit and written then, inside its transaction, with a few multi-row statements (turn-rows.ts); a message queued
// and confirmed within one turn is not written at all. A write SQLite refuses while running (a full disk, an I/O
// error) is never thrown at the router or a protocol: the turn's transaction is dropped (turn-transaction.ts), logged
// at most once a minute, and written again where that matters (see #failed).
import { thrownMessage } from "@switchboard/common";
import Database from "better-sqlite3";
import type { Logger } from "pino";
import { encodeMessage, type Message } from "../message.ts";
import type { RunStatement } from "./chunked-statements.ts";
import { LogWindow } from "./log-window.ts";
import { checkStateFile, StateFileError } from "./state-file.ts";
import type { CopyRecord, QueuedRow, StateStore, StoredCopy, StoredDelivery, UnreadLog } from "./state-store.ts";
import { TurnRows } from "./turn-rows.ts";
import { describeWriteFailure, TurnTransaction } from "./turn-transaction.ts";

const SCHEMA_VERSION = 1;

/**
 * better-sqlite3 12 (the last line that runs on Node 20) aborts the process on Node 24 when one of its Database or
 * Statement wrappers is garbage-collected while no V8 context is entered (node::RemoveEnvironmentCleanupHook asserts;
 * 13.x fixes it but needs Node 22). So no wrapper is ever left for the collector: pragmas go through exec (no
 * Statement), and every database and statement stays reachable until the process exits — one of each per state file,
 * and a bridge opens one.
 */
const KEPT_FOR_THE_PROCESS: object[] = [];

/** Id-map entries older than this are forgotten (an edit of a message older than that becomes a new message). */
const ID_MAP_MAX_AGE_MS = 30 * 24 * 3600 * 1000;
/** The id map is pruned (age and count) once per this many new entries, and at start-up. */
const PRUNE_EVERY = 500;
/** Confirmations held while the state file cannot be written (a full disk), written once it can (see settle()). */
export const MAX_HELD_SETTLES = 10_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS outbound (
  seq INTEGER PRIMARY KEY, account TEXT NOT NULL, channel TEXT NOT NULL, gateway TEXT NOT NULL,
  message TEXT NOT NULL, copy_of TEXT, edit_of TEXT, reply_to TEXT) STRICT;
CREATE TABLE IF NOT EXISTS id_map (
  seq INTEGER PRIMARY KEY, gateway TEXT NOT NULL, key TEXT NOT NULL, at INTEGER NOT NULL, copies TEXT NOT NULL,
  UNIQUE (gateway, key)) STRICT;
CREATE INDEX IF NOT EXISTS id_map_age ON id_map (at);
-- No index on account: it would double the cost of the one INSERT per message; reads walk the few rows by seq.
CREATE TABLE IF NOT EXISTS unread (seq INTEGER PRIMARY KEY, account TEXT NOT NULL, encoded TEXT NOT NULL) STRICT;
`;

interface OutboundRow {
  seq: number;
  account: string;
  channel: string;
  gateway: string;
  message: string;
  copy_of: string | null;
  edit_of: string | null;
  reply_to: string | null;
}

function prepare(db: Database.Database) {
  return {
    lastQueued: db.prepare<[], { seq: number | null }>("SELECT max(seq) AS seq FROM outbound"),
    queued: db.prepare<[], OutboundRow>("SELECT * FROM outbound ORDER BY seq"),
    copies: db.prepare<[string, string], { copies: string }>("SELECT copies FROM id_map WHERE gateway = ? AND key = ?"),
    updateCopies: db.prepare<[string, string, string]>("UPDATE id_map SET copies = ? WHERE gateway = ? AND key = ?"),
    loadCopies: db.prepare<[string, number], { key: string; copies: string }>(
      "SELECT key, copies FROM (SELECT seq, key, copies FROM id_map WHERE gateway = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
    ),
    pruneOld: db.prepare<[number]>("DELETE FROM id_map WHERE at < ?"),
    gateways: db.prepare<[], { gateway: string }>("SELECT DISTINCT gateway FROM id_map"),
    pruneCount: db.prepare<[string, string, number]>(
      "DELETE FROM id_map WHERE gateway = ? AND seq <= (SELECT seq FROM id_map WHERE gateway = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)",
    ),
    lastUnread: db.prepare<[], { seq: number | null }>("SELECT max(seq) AS seq FROM unread"),
    readUnread: db.prepare<[string, number]>("DELETE FROM unread WHERE account = ? AND seq <= ?"),
    trimUnread: db.prepare<[string, string, number]>(
      "DELETE FROM unread WHERE account = ? AND seq <= (SELECT seq FROM unread WHERE account = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)",
    ),
    begin: db.prepare("BEGIN"),
    commit: db.prepare("COMMIT"),
    rollback: db.prepare("ROLLBACK"),
    restoreUnread: db.prepare<[string, number], { seq: number; encoded: string }>(
      "SELECT seq, encoded FROM (SELECT seq, encoded FROM unread WHERE account = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
    ),
  };
}

type Statements = ReturnType<typeof prepare>;

/** Opens (creating it if needed) the state file; throws StateFileError with one line when it cannot be used. */
export function openSqliteStateStore(
  path: string,
  options: {
    idMapSize: number;
    /** For tests: the file holds at most this many pages, so it fills up as a full disk would (SQLITE_FULL). */
    maxPageCount?: number;
  },
): StateStore {
  const checked = checkStateFile(path);
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: 1000 });
    checked.confirm();
    // One bridge per file: the write lock taken below is kept until the file is closed (a second bridge started on
    // the same file would replay the first one's queues).
    KEPT_FOR_THE_PROCESS.push(db);
    db.exec("PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    db.exec("BEGIN IMMEDIATE; COMMIT;");
    db.exec(SCHEMA);
    const readVersion = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE name = 'version'");
    const writeVersion = db.prepare("INSERT INTO meta (name, value) VALUES ('version', ?)");
    KEPT_FOR_THE_PROCESS.push(readVersion, writeVersion);
    const version = readVersion.get();
    if (version === undefined) {
      writeVersion.run(String(SCHEMA_VERSION));
    } else if (Number(version.value) !== SCHEMA_VERSION) {
      throw new StateFileError(
        `state file ${path}: written by another version of the bridge (schema ${version.value}, this one reads ${SCHEMA_VERSION}); move it aside to start afresh`,
      );
    }
  } catch (error) {
    if (error instanceof StateFileError) throw error;
    const reason = thrownMessage(error);
    if ((error as { code?: unknown }).code === "SQLITE_BUSY") {
      throw new StateFileError(
        `state file ${path}: in use by another process (another bridge?); give each its own StateFile`,
      );
    }
    throw new StateFileError(`state file ${path}: cannot be opened as a SQLite database (${reason})`);
  }
  if (options.maxPageCount !== undefined) db.exec(`PRAGMA max_page_count = ${Math.floor(options.maxPageCount)}`);
  const statements = prepare(db);
  KEPT_FOR_THE_PROCESS.push(statements);
  const rows = new TurnRows(db, (statement) => KEPT_FOR_THE_PROCESS.push(statement));
  return new SqliteStateStore(db, statements, rows, path, options.idMapSize);
}

interface Settled {
  seq: number;
  copy: CopyRecord | undefined;
}

/** Runs a statement outside the turn's writes (at start-up): a failure is thrown. */
const runOrThrow: RunStatement = (statement, values) => {
  statement.run(...values);
  return true;
};

/** Runs a write statement; a failure is the turn's (see SqliteStateStore.#write), not thrown. */
type Write = <A extends unknown[]>(statement: Database.Statement<A>, ...args: A) => Database.RunResult | undefined;

class SqliteStateStore implements StateStore {
  readonly #db: Database.Database;
  readonly #sql: Statements;
  /** What the turn wrote, held until its commit (or until a statement that must see it runs). */
  readonly #held: TurnRows;
  readonly #idMapSize: number;
  /** Settles not written yet: they go together, in one transaction, at the end of the turn (see settle()). */
  #settling: Settled[] = [];
  /** Settles written into the open transaction: written again with the next ones if it is rolled back. */
  #settlingInTurn: Settled[] = [];
  /** The last outbound sequence number handed out (written or not). */
  #lastSeq: number;
  /** The last unread sequence number handed out (written or not), for every api account's log. */
  #lastUnreadSeq: number;
  #logger: Logger | undefined;
  readonly #failureLog = new LogWindow();
  /** Turns whose writes failed since the last commit that went through. */
  #failedTurns = 0;
  /** Settles let go since then (over MAX_HELD_SETTLES). */
  #droppedSettles = 0;
  #settlesScheduled = false;
  /** The turn's group commit, which `atomically` writes into. */
  readonly #turn: TurnTransaction;
  #keepQueued = false;
  readonly #unreadLogs: SqliteUnreadLog[] = [];
  #savesSincePrune = 0;

  constructor(
    db: Database.Database,
    sql: Statements,
    held: TurnRows,
    readonly path: string,
    idMapSize: number,
  ) {
    this.#db = db;
    this.#sql = sql;
    this.#held = held;
    this.#idMapSize = idMapSize;
    this.#lastSeq = sql.lastQueued.get()?.seq ?? 0;
    this.#lastUnreadSeq = sql.lastUnread.get()?.seq ?? 0;
    this.#turn = new TurnTransaction(db, sql, {
      committing: () => this.#writeHeld(),
      committed: () => this.#committed(),
      rolledBack: () => this.#rolledBack(),
      failed: (error) => this.#failed(error),
    });
    this.#prune();
  }

  reportFailuresTo(logger: Logger): void {
    this.#logger = logger;
  }

  atomically<T>(work: () => T): T {
    return this.#turn.run(work);
  }

  commit(): boolean {
    return this.#turn.commit();
  }

  committed(): Promise<void> {
    return this.#turn.committed();
  }

  /**
   * The sequence number is counted here rather than left to SQLite (which reuses the highest one when its row is
   * gone): a message whose row a failed transaction dropped keeps its number in its queue, and settling it later must
   * not delete a newer message's row that SQLite would have given the same number.
   */
  enqueue(d: StoredDelivery): number {
    const seq = ++this.#lastSeq;
    // As it is now: the router fills in the copy's ids later (when the message it edits is sent), as a replay does.
    // A message without Extra is held as a snapshot, encoded only if its row is written (turn-rows.ts: most rows of a
    // burst are confirmed within their turn); any other is encoded now. encodeMessage writes what JSON.stringify
    // would (keys in a fixed order) at about a third of its cost.
    const message = d.message.Extra === null ? { ...d.message } : encodeMessage(d.message);
    this.#hold(() =>
      this.#held.queue([
        seq,
        d.account,
        d.channel,
        d.gateway,
        message,
        d.copyOf ?? null,
        d.editOf ?? null,
        d.replyTo ?? null,
      ]),
    );
    return seq;
  }

  /**
   * Holds a row for the turn's commit, in the turn's transaction (begun if none is open, as a write outside
   * `atomically` is then committed at the end of the turn); nothing while the turn's writes are failing.
   */
  #hold(add: () => void): void {
    this.#turn.run(() => {
      if (this.#turn.failing) return;
      add();
      if (this.#held.full) this.#writeHeld();
    });
  }

  /** Writes the rows held so far into the turn's transaction: at its commit, and before a statement that reads them. */
  #writeHeld(): void {
    if (this.#held.empty) return;
    if (this.#turn.failing) this.#held.clear();
    else this.#held.write(this.#run);
  }

  /**
   * Written once the current work is done (process.nextTick), with every other settle of the moment, into the
   * turn's transaction: a burst that a destination confirms in one write (IRC's corked lines) and the posts of the
   * same turn cost one commit, not one per message. Removing a row later is always safe: a crash in between sends
   * the message again (at least once), it never loses one.
   */
  settle(seq: number, copy?: CopyRecord): void {
    if (this.#keepQueued) return;
    this.#settling.push({ seq, copy });
    this.#scheduleSettles();
  }

  /** Settles held back by a failed turn are written with the next ones, or by the next commit that goes through. */
  #scheduleSettles(): void {
    if (this.#settlesScheduled) return;
    this.#settlesScheduled = true;
    process.nextTick(() => {
      this.#settlesScheduled = false;
      this.#flushSettles();
    });
  }

  #flushSettles(): void {
    const settled = this.#settling;
    if (settled.length === 0 || !this.#db.open) return;
    this.#settling = [];
    // The queue row goes and the copy's id comes in one transaction (the turn's, with what the turn routed): after a
    // crash, either the message is still queued (and is sent again) or its copy is known (and later edits reach it).
    this.#turn.run(() => {
      if (this.#turn.failing) return this.#failedSettles(settled);
      for (const settle of settled) {
        // A row held in this turn is simply not written: nothing to write again if the turn is rolled back.
        const neverWritten = this.#held.dequeue(settle.seq);
        if (!neverWritten || settle.copy !== undefined) this.#settlingInTurn.push(settle);
        if (settle.copy !== undefined) this.#recordCopyId(settle.copy);
      }
    });
  }

  /**
   * Written again with the next settles (or at the stop): a message sent is not sent again after a restart. At most
   * MAX_HELD_SETTLES are held while the file cannot be written; past them the oldest are let go, and those messages
   * may be sent again after a restart (at least once), rather than memory growing with every message of the outage.
   */
  #failedSettles(settled: Settled[]): void {
    const held = settled.concat(this.#settling);
    const over = held.length - MAX_HELD_SETTLES;
    if (over > 0) {
      held.splice(0, over);
      this.#droppedSettles += over;
    }
    this.#settling = held;
  }

  queued(): QueuedRow[] {
    this.#flushSettles();
    this.#writeHeld();
    return this.#sql.queued.all().map((row) => {
      const queued: QueuedRow = {
        seq: row.seq,
        account: row.account,
        channel: row.channel,
        gateway: row.gateway,
        message: JSON.parse(row.message) as Message,
      };
      if (row.copy_of !== null) queued.copyOf = row.copy_of;
      if (row.edit_of !== null) queued.editOf = row.edit_of;
      if (row.reply_to !== null) queued.replyTo = row.reply_to;
      return queued;
    });
  }

  discard(seqs: readonly number[]): void {
    this.#writeHeld();
    this.#db.transaction(() => this.#held.deleteQueued(runOrThrow, seqs))();
  }

  saveCopies(gateway: string, key: string, copies: readonly StoredCopy[]): void {
    const at = Date.now();
    // The store's own array: a copy's id is recorded in it while it is held (see #recordCopyId).
    this.#hold(() => this.#held.saveCopies(gateway, key, at, copies.slice()));
    if (++this.#savesSincePrune >= PRUNE_EVERY && !this.#turn.failing) {
      this.#writeHeld();
      if (this.#turn.failing) return;
      try {
        this.#prune();
      } catch (error) {
        this.#turn.fail(error);
      }
    }
  }

  loadCopies(gateway: string, limit: number): [string, StoredCopy[]][] {
    this.#writeHeld();
    return this.#sql.loadCopies.all(gateway, limit).map((row) => [row.key, JSON.parse(row.copies) as StoredCopy[]]);
  }

  unread(account: string, capacity: number): UnreadLog {
    const log = new SqliteUnreadLog(
      this.#sql,
      {
        nextSeq: () => ++this.#lastUnreadSeq,
        append: (seq, encoded) => this.#hold(() => this.#held.appendUnread(seq, account, encoded)),
        write: (statement, ...args) => {
          // The held rows first: a read or a trim removes rows by number, some of which may be held.
          this.#writeHeld();
          return this.#write(statement, ...args);
        },
        inTurn: (work) => this.#turn.run(work),
        isOpen: () => this.#db.open,
      },
      account,
      capacity,
    );
    this.#unreadLogs.push(log);
    return log;
  }

  keepQueued(): void {
    // What was confirmed before is written; what the queues let go from now on stays.
    this.#flushSettles();
    this.#keepQueued = true;
  }

  close(): void {
    if (!this.#db.open) return;
    this.#flushSettles();
    for (const log of this.#unreadLogs) log.flush();
    this.#turn.commit();
    this.#db.close();
  }

  /**
   * Every write of the turn goes through here: SQLite's error (a full disk...) fails the turn (its transaction is
   * dropped, those waiting are answered with an error) instead of being thrown at the router or a protocol, and once
   * a write failed the turn's others are skipped (they could not be kept with it).
   */
  readonly #write: Write = (statement, ...args) => {
    if (this.#turn.failing) return undefined;
    try {
      return statement.run(...args);
    } catch (error) {
      this.#turn.fail(error);
      return undefined;
    }
  };

  /** #write for the held rows' statements. */
  readonly #run: RunStatement = (statement, values) => {
    if (this.#turn.failing) return false;
    try {
      statement.run(...values);
      return true;
    } catch (error) {
      this.#turn.fail(error);
      return false;
    }
  };

  #committed(): void {
    this.#settlingInTurn = [];
    if (this.#failedTurns === 0) return;
    if (this.#settling.length > 0) this.#scheduleSettles();
    const dropped = this.#droppedSettles;
    this.#logger?.info(
      {
        stateFile: this.path,
        failedTurns: this.#failedTurns,
        ...(dropped > 0 ? { droppedConfirmations: dropped } : {}),
      },
      `state file ${this.path} written again after ${this.#failedTurns} failed write(s)` +
        (dropped > 0
          ? `; ${dropped} confirmation(s) could not be kept: those messages may be sent again after a restart`
          : ""),
    );
    this.#failedTurns = 0;
    this.#droppedSettles = 0;
  }

  #rolledBack(): void {
    this.#held.clear();
    const settled = this.#settlingInTurn;
    this.#settlingInTurn = [];
    if (settled.length > 0) this.#failedSettles(settled);
  }

  /** Logged at most once a minute: a full disk fails every turn that writes, and must not flood the log too. */
  #failed(error: unknown): void {
    this.#failedTurns++;
    const quiet = this.#failureLog.due();
    if (quiet === undefined) return;
    const reason = describeWriteFailure(error);
    const more = quiet > 0 ? ` (and ${quiet} more failed writes since the last such line)` : "";
    this.#logger?.error(
      { stateFile: this.path, reason, ...(quiet > 0 ? { quietFailures: quiet } : {}) },
      `state file ${this.path}: not written (${reason}); the bridge goes on relaying, but what it received meanwhile ` +
        `is not kept across a restart and posts are answered 503: free space for the state file${more}`,
    );
  }

  #recordCopyId(copy: CopyRecord): void {
    if (this.#turn.failing) return;
    const held = this.#held.heldCopies(copy.gateway, copy.key);
    if (held !== undefined) {
      const at = held.findIndex((c) => c.account === copy.account && c.channel === copy.channel);
      if (at >= 0) held[at] = { ...(held[at] as StoredCopy), id: copy.id };
      return;
    }
    // Not held: the entry is in the file (or gone), and held rows of other entries do not matter to it.
    let row: { copies: string } | undefined;
    try {
      row = this.#sql.copies.get(copy.gateway, copy.key);
    } catch (error) {
      this.#turn.fail(error);
      return;
    }
    if (row === undefined) return;
    const copies = JSON.parse(row.copies) as StoredCopy[];
    const entry = copies.find((c) => c.account === copy.account && c.channel === copy.channel);
    if (entry === undefined) return;
    entry.id = copy.id;
    this.#write(this.#sql.updateCopies, JSON.stringify(copies), copy.gateway, copy.key);
  }

  #prune(): void {
    this.#savesSincePrune = 0;
    this.#db.transaction(() => {
      this.#sql.pruneOld.run(Date.now() - ID_MAP_MAX_AGE_MS);
      for (const { gateway } of this.#sql.gateways.all()) {
        this.#sql.pruneCount.run(gateway, gateway, this.#idMapSize);
      }
    })();
  }
}

/** What an unread log needs of its store. */
interface UnreadWrites {
  /** The next unread sequence number, shared by every api account's log. */
  nextSeq(): number;
  /** Holds a new row for the turn's commit. */
  append(seq: number, encoded: string): void;
  /** Runs a write statement in the turn, after the rows held so far. */
  write: Write;
  inTurn(work: () => void): void;
  isOpen(): boolean;
}

/** Rows beyond the capacity are trimmed once per `capacity` appends, not on each: one row per message. */
class SqliteUnreadLog implements UnreadLog {
  readonly #sql: Statements;
  readonly #store: UnreadWrites;
  readonly #account: string;
  readonly #capacity: number;
  #lastSeq = 0;
  #sinceTrim = 0;
  /** The last sequence number a client read, not yet deleted (0: none). */
  #readUpTo = 0;

  constructor(sql: Statements, store: UnreadWrites, account: string, capacity: number) {
    this.#sql = sql;
    this.#store = store;
    this.#account = account;
    this.#capacity = capacity;
  }

  /** At the account's start, before it appends anything. */
  restore(): string[] {
    this.#sql.trimUnread.run(this.#account, this.#account, this.#capacity);
    const rows = this.#sql.restoreUnread.all(this.#account, this.#capacity);
    this.#lastSeq = rows.at(-1)?.seq ?? 0;
    return rows.map((row) => row.encoded);
  }

  append(encoded: string): void {
    // Never a number a dropped transaction had: SQLite would give it again, and a read of the messages up to the
    // dropped one would then remove a newer message no client has read.
    this.#lastSeq = this.#store.nextSeq();
    this.#store.append(this.#lastSeq, encoded);
    if (++this.#sinceTrim >= this.#capacity) {
      this.#sinceTrim = 0;
      this.#store.write(this.#sql.trimUnread, this.#account, this.#account, this.#capacity);
    }
  }

  /**
   * Forgotten on the next turn, once the answer carrying them has been written: a crash in between serves them
   * again (at least once), rather than losing what a client may not have received.
   */
  readAll(): void {
    const first = this.#readUpTo === 0;
    this.#readUpTo = this.#lastSeq;
    if (first) setImmediate(() => this.flush());
  }

  /** Writes a pending read now (also when the store closes). */
  flush(): void {
    if (this.#readUpTo === 0 || !this.#store.isOpen()) return;
    const upTo = this.#readUpTo;
    this.#readUpTo = 0;
    // In the turn's transaction: a failure to write it serves those messages again after a restart (at least once).
    this.#store.inTurn(() => this.#store.write(this.#sql.readUnread, this.#account, upTo));
  }
}
