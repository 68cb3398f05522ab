// The state file's group commit on its own (core/turn-transaction.ts), with statements that record what they run:
// the writes of one event-loop turn share one transaction, committed at the end of the turn; committed() resolves
// only after that COMMIT ran; a commit asked for now (a protocol's receive) is durable on return; a unit that
// throws rolls the turn's transaction back and those waiting are told.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StateWriteError, TurnTransaction } from "../src/core/turn-transaction.ts";

/** A database stand-in: SQLite's transaction flag as BEGIN, COMMIT and ROLLBACK leave it, and a log of them. */
function recordingDatabase() {
  const log: string[] = [];
  const db = { inTransaction: false, open: true };
  const statement = (name: string, inTransaction: boolean) => ({
    run() {
      log.push(name);
      db.inTransaction = inTransaction;
    },
  });
  const turn = new TurnTransaction(db, {
    begin: statement("BEGIN", true),
    commit: statement("COMMIT", false),
    rollback: statement("ROLLBACK", false),
  });
  return { db, log, turn };
}

/** A database stand-in whose COMMIT or ROLLBACK fails while told to (a full disk, an I/O error). */
function failingDatabase(fails: { commit?: () => boolean; rollback?: () => boolean }, events = {}) {
  const log: string[] = [];
  const db = { inTransaction: false, open: true };
  const statement = (name: string, inTransaction: boolean, failing?: () => boolean) => ({
    run() {
      if (failing?.()) throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
      db.inTransaction = inTransaction;
      log.push(name);
    },
  });
  const turn = new TurnTransaction(
    db,
    {
      begin: statement("BEGIN", true),
      commit: statement("COMMIT", false, fails.commit),
      rollback: statement("ROLLBACK", false, fails.rollback),
    },
    events,
  );
  return { db, log, turn };
}

const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("the turn's transaction", () => {
  it("puts the units of one turn in one transaction and resolves committed() only after its COMMIT", async () => {
    const { log, turn } = recordingDatabase();
    const answered: number[] = [];
    for (let n = 0; n < 50; n++) {
      turn.run(() => log.push(`write ${n}`));
      // As the api account does: the answer waits for the commit.
      void turn.committed().then(() => {
        answered.push(n);
        log.push(`answer ${n}`);
      });
    }
    assert.equal(log.filter((entry) => entry === "BEGIN").length, 1);
    assert.ok(!log.includes("COMMIT"), "committed before the end of the turn");
    await Promise.resolve();
    assert.deepEqual(answered, [], "answered before the commit");
    await endOfTurn();
    assert.equal(turn.commits, 1);
    assert.deepEqual(
      answered,
      Array.from({ length: 50 }, (_, n) => n),
    );
    const commitAt = log.indexOf("COMMIT");
    assert.equal(log.lastIndexOf("write 49"), commitAt - 1, "every write before the one COMMIT");
    assert.equal(log.indexOf("answer 0"), commitAt + 1, "every answer after it");
    // The next turn opens a transaction of its own.
    turn.run(() => log.push("write later"));
    await turn.committed();
    assert.equal(turn.commits, 2);
  });

  it("commits at once when asked (a protocol's receive), and committed() then resolves without waiting", async () => {
    const { db, log, turn } = recordingDatabase();
    turn.run(() => log.push("write"));
    const waiting = turn.committed();
    turn.commit();
    assert.deepEqual(log, ["BEGIN", "write", "COMMIT"]);
    assert.equal(db.inTransaction, false);
    await waiting;
    await turn.committed();
    await endOfTurn();
    assert.equal(turn.commits, 1, "the end of the turn has nothing left to commit");
  });

  it("rolls the turn's transaction back when a unit throws, and tells those waiting", async () => {
    const { log, turn } = recordingDatabase();
    turn.run(() => log.push("write 1"));
    const first = turn.committed();
    assert.throws(
      () =>
        turn.run(() => {
          throw new Error("disk full");
        }),
      /disk full/,
    );
    await assert.rejects(first, /disk full/);
    assert.deepEqual(log, ["BEGIN", "write 1", "ROLLBACK"]);
    // The turn goes on with a new transaction.
    turn.run(() => log.push("write 2"));
    await turn.committed();
    assert.deepEqual(log.slice(3), ["BEGIN", "write 2", "COMMIT"]);
  });

  it("rejects committed() when the COMMIT fails, and rolls back", async () => {
    const log: string[] = [];
    const db = { inTransaction: false, open: true };
    const turn = new TurnTransaction(db, {
      begin: {
        run() {
          db.inTransaction = true;
          log.push("BEGIN");
        },
      },
      commit: {
        run() {
          throw new Error("SQLITE_IOERR");
        },
      },
      rollback: {
        run() {
          db.inTransaction = false;
          log.push("ROLLBACK");
        },
      },
    });
    turn.run(() => log.push("write"));
    await assert.rejects(turn.committed(), /SQLITE_IOERR/);
    assert.deepEqual(log, ["BEGIN", "write", "ROLLBACK"]);
    assert.equal(turn.commits, 0);
  });

  it("joins a transaction it did not open (a better-sqlite3 transaction function) without committing it", async () => {
    const { db, log, turn } = recordingDatabase();
    db.inTransaction = true;
    assert.equal(
      turn.run(() => "inside"),
      "inside",
    );
    await turn.committed();
    await endOfTurn();
    assert.deepEqual(log, []);
  });

  it("throws nothing when the end-of-turn COMMIT fails with nobody waiting; tells the store; the next turn writes", async () => {
    let full = true;
    const failures: unknown[] = [];
    let rolledBack = 0;
    const { log, turn } = failingDatabase(
      { commit: () => full },
      { failed: (error: unknown) => failures.push(error), rolledBack: () => rolledBack++ },
    );
    // A settle or another protocol's message: written, nobody waits for it. The old commit threw here, from
    // setImmediate, and the process died.
    turn.run(() => log.push("write"));
    await endOfTurn();
    assert.deepEqual(log, ["BEGIN", "write", "ROLLBACK"]);
    assert.equal(failures.length, 1);
    assert.equal(rolledBack, 1);
    assert.equal(turn.failing, false, "the next turn tries again");
    full = false;
    turn.run(() => log.push("write again"));
    await turn.committed();
    assert.deepEqual(log.slice(3), ["BEGIN", "write again", "COMMIT"]);
  });

  it("after a failed write, answers the turn's waiting and later posts with a StateWriteError and writes nothing more", async () => {
    const { db, log, turn } = recordingDatabase();
    turn.run(() => log.push("write 1"));
    const waiting = turn.committed();
    turn.fail(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }));
    assert.equal(db.inTransaction, false);
    assert.equal(turn.failing, true);
    await assert.rejects(waiting, StateWriteError);
    // A post later in the same turn: its writes are skipped by the store, and it is told too.
    assert.equal(
      turn.run(() => "routed"),
      "routed",
    );
    await assert.rejects(turn.committed(), /^StateWriteError: not kept: .*\(SQLITE_FULL: database or disk is full\)/);
    assert.equal(turn.commit(), false);
    await endOfTurn();
    assert.deepEqual(log, ["BEGIN", "write 1", "ROLLBACK"]);
    turn.run(() => log.push("write 2"));
    await turn.committed();
    assert.deepEqual(log.slice(3), ["BEGIN", "write 2", "COMMIT"]);
  });

  it("ends a transaction a failed ROLLBACK left open before the next BEGIN, rather than joining it", async () => {
    let rollbackFails = true;
    const { db, log, turn } = failingDatabase({ rollback: () => rollbackFails });
    turn.run(() => log.push("write 1"));
    turn.fail(new Error("disk I/O error"));
    assert.equal(db.inTransaction, true, "the ROLLBACK failed");
    await endOfTurn();
    rollbackFails = false;
    turn.run(() => log.push("write 2"));
    await turn.committed();
    assert.deepEqual(log, ["BEGIN", "write 1", "ROLLBACK", "BEGIN", "write 2", "COMMIT"]);
  });

  it("lets the store write what it held just before the COMMIT; a write failing there fails the turn instead", async () => {
    let failNext = false;
    let turn: TurnTransaction | undefined;
    const events = {
      committing: () => {
        log.push("held rows");
        if (failNext) turn?.fail(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }));
      },
      rolledBack: () => log.push("rolled back"),
    };
    const built = failingDatabase({}, events);
    const log = built.log;
    turn = built.turn;
    turn.run(() => log.push("write 1"));
    const first = turn.committed();
    assert.equal(turn.commit(), true);
    await first;
    assert.deepEqual(log, ["BEGIN", "write 1", "held rows", "COMMIT"]);

    failNext = true;
    turn.run(() => log.push("write 2"));
    const second = turn.committed();
    assert.equal(turn.commit(), false, "no COMMIT after the held rows could not be written");
    await assert.rejects(second, /^StateWriteError: not kept: .*\(SQLITE_FULL: database or disk is full\)/);
    assert.equal(built.db.inTransaction, false);
    assert.deepEqual(log.slice(4), ["BEGIN", "write 2", "held rows", "ROLLBACK", "rolled back"]);
    await endOfTurn();
    failNext = false;
    turn.run(() => log.push("write 3"));
    await turn.committed();
    assert.deepEqual(log.slice(9), ["BEGIN", "write 3", "held rows", "COMMIT"]);
  });
});
