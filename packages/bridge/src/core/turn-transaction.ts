// The state file's group commit: what the router writes during one event-loop turn goes into one transaction,
// committed at the end of the turn (setImmediate: after every socket read of the loop's poll phase, so the posts of
// all connections that arrived together), or earlier when a caller needs it durable now (commit()). A burst of N
// posts costs one commit instead of N. Whoever acknowledges a message (the api account's answer) waits for
// committed() first: a crash before the commit loses only messages nobody was told were accepted.

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

interface Waiting {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

const WRITTEN: Promise<void> = Promise.resolve();

export class TurnTransaction {
  readonly #db: TurnDatabase;
  readonly #sql: TurnStatements;
  /** Whether this turn's transaction is open (begun here, not yet committed or rolled back). */
  #open = false;
  /** Whether the end-of-turn commit is scheduled (once per turn, however many transactions the turn opens). */
  #scheduled = false;
  /** Those waiting for the open transaction's commit; created on the first committed() of the turn. */
  #waiting: Waiting | undefined;
  /** Transactions committed so far (tests count them through the store). */
  #commits = 0;

  constructor(db: TurnDatabase, sql: TurnStatements) {
    this.#db = db;
    this.#sql = sql;
  }

  get commits(): number {
    return this.#commits;
  }

  /**
   * Runs `work` inside the turn's transaction: its writes are committed with the turn's others. If it throws, the
   * whole transaction is rolled back and those waiting for it are told (their messages are answered with an error,
   * none acknowledged): a savepoint per unit would keep the others, at the cost of two statements per message, for
   * a failure (a full disk, a bug) that leaves the file in doubt anyway. Inside a transaction this store did not
   * open (a better-sqlite3 transaction function), it simply joins it.
   */
  run<T>(work: () => T): T {
    if (!this.#open) {
      if (this.#db.inTransaction) return work();
      this.#sql.begin.run();
      this.#open = true;
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#endOfTurn);
      }
    }
    try {
      return work();
    } catch (error) {
      this.#rollback(error);
      throw error;
    }
  }

  /** Commits what the turn wrote so far: durable on return. Throws when the commit fails (nothing of it is kept). */
  commit(): void {
    if (!this.#open) return;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    this.#open = false;
    try {
      // SQLite may have rolled the transaction back itself (an I/O error or a full disk during a write).
      if (!this.#db.inTransaction) throw new Error("the state file's transaction was rolled back by SQLite");
      this.#sql.commit.run();
    } catch (error) {
      if (this.#db.inTransaction) this.#sql.rollback.run();
      waiting?.reject(error);
      throw error;
    }
    this.#commits++;
    waiting?.resolve();
  }

  /** Resolves once everything written so far is committed (at once when nothing waits); rejects if that failed. */
  committed(): Promise<void> {
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

  readonly #endOfTurn = (): void => {
    this.#scheduled = false;
    if (!this.#db.open) return;
    const waited = this.#waiting !== undefined;
    try {
      this.commit();
    } catch (error) {
      // Those who wait were told (their answers are errors); with nobody waiting it is as a failed write always was.
      if (!waited) throw error;
    }
  };

  #rollback(error: unknown): void {
    this.#open = false;
    if (this.#db.inTransaction) this.#sql.rollback.run();
    this.#waiting?.reject(error);
    this.#waiting = undefined;
  }
}
