// The state file's group commit: what the router writes during one event-loop turn goes into one transaction,
// committed at the end of the turn (setImmediate: after every socket read of the loop's poll phase, so the posts of
// all connections that arrived together), or earlier when a caller needs it durable now (commit()). A burst of N
// posts costs one commit instead of N. Whoever acknowledges a message (the api account's answer) waits for
// committed() first: a crash before the commit loses only messages nobody was told were accepted.
//
// A write or a commit can fail with the file still usable later (a full disk, a full database, an I/O error): the
// turn's transaction is then rolled back, those waiting for it are told (StateWriteError: their messages are answered
// with an error, none acknowledged), the store is told (to log it, and to write again what it can), and the rest of
// the turn writes nothing. Nothing is thrown at whoever happened to write or commit: the next turn tries again, so
// the bridge keeps running and writes again once there is room.

import { thrownMessage } from "@switchboard/common";

/** A statement run for its effect (better-sqlite3's Statement.run). */
interface Runnable {
  run(): unknown;
}

export interface TurnStatements {
  begin: Runnable;
  commit: Runnable;
  rollback: Runnable;
}

/** What the transaction needs of the database (better-sqlite3's Database). */
export interface TurnDatabase {
  /** Whether SQLite has a transaction open (ours, or a better-sqlite3 transaction function's). */
  readonly inTransaction: boolean;
  readonly open: boolean;
}

/** What the store learns of its turns. */
export interface TurnEvents {
  /**
   * The transaction is about to be committed: the store writes what it held back for the commit. A write that fails
   * there fails the turn (see fail()), and the commit does not happen.
   */
  committing?(): void;
  /** A transaction was committed (its writes are in the file). */
  committed?(): void;
  /** A transaction was rolled back (a write failed, the commit failed, or a unit threw): none of its writes are kept. */
  rolledBack?(): void;
  /** A write, the commit or the BEGIN failed: `error` is SQLite's. Called once per failed turn. */
  failed?(error: unknown): void;
}

/**
 * A message's writes are not in the state file because the file could not be written: what its sender is told (the
 * api answers 503 with this message). SQLite's reason is in `cause`.
 */
export class StateWriteError extends Error {
  override readonly name = "StateWriteError";
  constructor(cause: unknown) {
    super(
      `not kept: the bridge cannot write its state file (${describeWriteFailure(cause)}), so this message would not ` +
        "survive a restart, though it may have been relayed already; post it again once the bridge's disk has room " +
        "if it must not be lost (it may then appear twice)",
      { cause },
    );
  }
}

/** SQLite's code and message (`SQLITE_FULL: database or disk is full`), never a path. */
export function describeWriteFailure(error: unknown): string {
  if (typeof error !== "object" || error === null) return thrownMessage(error);
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === "string" ? message : thrownMessage(error);
  return typeof code === "string" && !text.startsWith(code) ? `${code}: ${text}` : text;
}

interface Waiting {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

const WRITTEN: Promise<void> = Promise.resolve();

export class TurnTransaction {
  readonly #db: TurnDatabase;
  readonly #sql: TurnStatements;
  readonly #events: TurnEvents;
  /** Whether this turn's transaction is open (begun here, not yet committed or rolled back). */
  #open = false;
  /** Whether the end-of-turn commit is scheduled (once per turn, however many transactions the turn opens). */
  #scheduled = false;
  /** Those waiting for the open transaction's commit; created on the first committed() of the turn. */
  #waiting: Waiting | undefined;
  /** This turn's writes failed: the rest of the turn writes nothing, and committed() rejects with this. */
  #failure: { error: StateWriteError; answer: Promise<void> } | undefined;
  /** A ROLLBACK failed: the transaction SQLite still has open is ours, to be rolled back before the next BEGIN. */
  #abandoned = false;
  /** Transactions committed so far (tests count them through the store). */
  #commits = 0;

  constructor(db: TurnDatabase, sql: TurnStatements, events: TurnEvents = {}) {
    this.#db = db;
    this.#sql = sql;
    this.#events = events;
  }

  get commits(): number {
    return this.#commits;
  }

  /** Whether this turn's writes failed already: the store skips the rest of them (they could not be kept). */
  get failing(): boolean {
    return this.#failure !== undefined;
  }

  /**
   * Runs `work` inside the turn's transaction: its writes are committed with the turn's others. If it throws, the
   * whole transaction is rolled back and those waiting for it are told (their messages are answered with an error,
   * none acknowledged): a savepoint per unit would keep the others, at the cost of two statements per message, for
   * a failure (a bug) that leaves the file in doubt anyway. Inside a transaction this store did not open (a
   * better-sqlite3 transaction function), it simply joins it.
   */
  run<T>(work: () => T): T {
    if (!this.#open && this.#failure === undefined) this.#begin();
    if (!this.#open) return work();
    try {
      return work();
    } catch (error) {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      this.#open = false;
      this.#rollback();
      waiting?.reject(error);
      this.#events.rolledBack?.();
      throw error;
    }
  }

  /**
   * A write of the turn failed (the store calls this with SQLite's error instead of throwing it): the turn's
   * transaction is rolled back, those waiting are answered with a StateWriteError, and the rest of the turn writes
   * nothing.
   */
  fail(error: unknown): void {
    if (this.#failure !== undefined) return;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    const wasOpen = this.#open;
    this.#open = false;
    if (wasOpen) this.#rollback();
    const failure = new StateWriteError(error);
    const answer = Promise.reject(failure);
    answer.catch(() => {});
    this.#failure = { error: failure, answer };
    this.#schedule();
    waiting?.reject(failure);
    if (wasOpen) this.#events.rolledBack?.();
    this.#events.failed?.(error);
  }

  /**
   * Commits what the turn wrote so far: durable on return when it returns true. False when the turn's writes could
   * not be kept (a write or this commit failed; see fail()): nothing of them is in the file.
   */
  commit(): boolean {
    if (!this.#open) return this.#failure === undefined;
    try {
      this.#events.committing?.();
    } catch (error) {
      this.fail(error);
    }
    if (!this.#open) return false;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    try {
      // SQLite may have rolled the transaction back itself (an I/O error or a full disk during a write).
      if (!this.#db.inTransaction) throw new Error("the state file's transaction was rolled back by SQLite");
      this.#sql.commit.run();
    } catch (error) {
      this.#waiting = waiting;
      this.fail(error);
      return false;
    }
    this.#open = false;
    this.#commits++;
    waiting?.resolve();
    this.#events.committed?.();
    return true;
  }

  /** Resolves once everything written so far is committed (at once when nothing waits); rejects if that failed. */
  committed(): Promise<void> {
    if (this.#failure !== undefined) return this.#failure.answer;
    if (!this.#open) return WRITTEN;
    if (this.#waiting === undefined) {
      let resolve: () => void = () => {};
      let reject: (error: unknown) => void = () => {};
      const promise = new Promise<void>((done, fail) => {
        resolve = done;
        reject = fail;
      });
      this.#waiting = { promise, resolve, reject };
    }
    return this.#waiting.promise;
  }

  #begin(): void {
    if (this.#db.inTransaction) {
      // Someone else's (a better-sqlite3 transaction function): joined. Our own, left by a failed ROLLBACK: ended.
      if (!this.#abandoned) return;
      this.#rollback();
      if (this.#db.inTransaction) {
        this.fail(new Error("the state file's last transaction cannot be rolled back"));
        return;
      }
    }
    try {
      this.#sql.begin.run();
    } catch (error) {
      this.fail(error);
      return;
    }
    this.#open = true;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#endOfTurn);
  }

  /** Never throws: a ROLLBACK that fails (the file gone bad) leaves SQLite's transaction to the next BEGIN. */
  #rollback(): void {
    this.#abandoned = false;
    if (!this.#db.inTransaction) return;
    try {
      this.#sql.rollback.run();
    } catch {
      this.#abandoned = this.#db.inTransaction;
    }
  }

  readonly #endOfTurn = (): void => {
    this.#scheduled = false;
    if (this.#db.open) this.commit();
    // The next turn tries again: a disk that has room again is written to at once.
    this.#failure = undefined;
  };
}
