// The SQLite state store on its own: queued messages in order until settled, the id map bounded by count, the api
// unread buffer bounded by its capacity and forgotten once read, a stop keeping what is queued; and the file itself
// opened without trusting its folder (a symlink, a planted companion or a non-regular file refused, 0600 on creation).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { pino } from "pino";
import { MAX_HELD_SETTLES, openSqliteStateStore } from "../src/core/sqlite-state-store.ts";
import { StateFileError, stateFilePath } from "../src/core/state-file.ts";
import type { StoredDelivery } from "../src/core/state-store.ts";
import { StateWriteError } from "../src/core/turn-transaction.ts";
import { emptyMessage } from "../src/message.ts";

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "state-store-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const delivery = (text: string, extra: Partial<StoredDelivery> = {}): StoredDelivery => ({
  account: "irc.net",
  channel: "#c",
  gateway: "g",
  message: emptyMessage({ text }),
  ...extra,
});

/** Waits one turn: reads are forgotten on the next one. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("the SQLite state store", () => {
  it("keeps queued messages in order across a reopen until each is settled, with the copy's id", (t) => {
    const path = join(tempDir(t), "s.db");
    const first = openSqliteStateStore(path, { idMapSize: 10 });
    first.saveCopies("g", "slack.a 1", [{ account: "irc.net", channel: "#c", id: "" }]);
    const seqs = ["one", "two", "three"].map((text) => first.enqueue(delivery(text, { copyOf: "slack.a 1" })));
    first.settle(seqs[0] ?? 0, { gateway: "g", key: "slack.a 1", account: "irc.net", channel: "#c", id: "42" });
    first.close();
    const second = openSqliteStateStore(path, { idMapSize: 10 });
    t.after(() => second.close());
    assert.deepEqual(
      second.queued().map((row) => row.message.text),
      ["two", "three"],
    );
    assert.equal(second.queued()[0]?.copyOf, "slack.a 1");
    assert.deepEqual(second.loadCopies("g", 10), [["slack.a 1", [{ account: "irc.net", channel: "#c", id: "42" }]]]);
  });

  it("after keepQueued a settle no longer removes anything (a stop keeps what the queues hold)", (t) => {
    const path = join(tempDir(t), "s.db");
    const store = openSqliteStateStore(path, { idMapSize: 10 });
    const seq = store.enqueue(delivery("kept"));
    store.keepQueued();
    store.settle(seq);
    store.close();
    const again = openSqliteStateStore(path, { idMapSize: 10 });
    t.after(() => again.close());
    assert.deepEqual(
      again.queued().map((row) => row.message.text),
      ["kept"],
    );
  });

  it("bounds the id map per gateway by count, keeping the most recent", (t) => {
    const path = join(tempDir(t), "s.db");
    const store = openSqliteStateStore(path, { idMapSize: 3 });
    for (let i = 0; i < 10; i++) store.saveCopies("g", `k${i}`, [{ account: "a", channel: "c", id: `i${i}` }]);
    store.saveCopies("h", "other", [{ account: "a", channel: "c", id: "x" }]);
    store.close();
    // Pruned at start-up (and every few hundred saves).
    const again = openSqliteStateStore(path, { idMapSize: 3 });
    t.after(() => again.close());
    assert.deepEqual(
      again.loadCopies("g", 100).map(([key]) => key),
      ["k7", "k8", "k9"],
    );
    assert.deepEqual(
      again.loadCopies("h", 100).map(([key]) => key),
      ["other"],
    );
  });

  it("keeps an api account's unread messages up to its capacity and forgets them once read", async (t) => {
    const path = join(tempDir(t), "s.db");
    const store = openSqliteStateStore(path, { idMapSize: 10 });
    const log = store.unread("api.b", 3);
    assert.deepEqual(log.restore(), []);
    for (let i = 1; i <= 7; i++) log.append(`m${i}`);
    store.unread("api.c", 3).append("c1");
    store.close();
    const reopened = openSqliteStateStore(path, { idMapSize: 10 });
    const restored = reopened.unread("api.b", 3);
    assert.deepEqual(restored.restore(), ["m5", "m6", "m7"]);
    restored.readAll();
    restored.append("m8");
    await nextTurn();
    reopened.close();
    const last = openSqliteStateStore(path, { idMapSize: 10 });
    t.after(() => last.close());
    assert.deepEqual(last.unread("api.b", 3).restore(), ["m8"], "what was read is gone, what came after stays");
    assert.deepEqual(last.unread("api.c", 3).restore(), ["c1"], "another account's buffer is its own");
  });
});

describe("opening the state file", () => {
  const refused = (path: string, pattern: RegExp) => {
    assert.throws(
      () => openSqliteStateStore(path, { idMapSize: 10 }),
      (error: unknown) =>
        error instanceof StateFileError && pattern.test(error.message) && !error.message.includes("\n"),
    );
  };

  it("creates a new file with mode 0600", (t) => {
    const path = join(tempDir(t), "new.db");
    openSqliteStateStore(path, { idMapSize: 10 }).close();
    assert.equal(statSync(path).mode & 0o777, 0o600);
  });

  it("refuses a symlink (even to a valid state file) and leaves its target untouched", (t) => {
    const dir = tempDir(t);
    const target = join(dir, "target");
    writeFileSync(target, "precious");
    const link = join(dir, "s.db");
    symlinkSync(target, link);
    refused(link, /s\.db: is a symbolic link/);
    assert.equal(readFileSync(target, "utf8"), "precious");
    const dangling = join(dir, "dangling.db");
    symlinkSync(join(dir, "nowhere"), dangling);
    refused(dangling, /dangling\.db: is a symbolic link/);
    assert.throws(() => lstatSync(join(dir, "nowhere")), "nothing was created through the link");
  });

  it("refuses a planted link beside it (SQLite's -wal and -shm files)", (t) => {
    const dir = tempDir(t);
    const target = join(dir, "target");
    writeFileSync(target, "precious");
    symlinkSync(target, join(dir, "s.db-wal"));
    refused(join(dir, "s.db"), /s\.db-wal: is a symbolic link/);
    assert.equal(readFileSync(target, "utf8"), "precious");
  });

  it("refuses a directory, a missing folder, and a file that is not a state file, each in one line", (t) => {
    const dir = tempDir(t);
    mkdirSync(join(dir, "sub"));
    refused(join(dir, "sub"), /sub: is not a regular file/);
    refused(join(dir, "missing", "s.db"), /s\.db: its folder does not exist/);
    const text = join(dir, "notes.txt");
    writeFileSync(text, "x".repeat(4096));
    refused(text, /notes\.txt: cannot be opened as a SQLite database/);
  });

  it("drops a turn whose writes the file refuses (full), without throwing; writes again once there is room", async (t) => {
    const path = join(tempDir(t), "s.db");
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    // 40 pages of 4 KiB: the file is full long before 100 messages of 8 KB are in it.
    const store = openSqliteStateStore(path, { idMapSize: 10, maxPageCount: 40 });
    store.reportFailuresTo(logger);
    const first = store.atomically(() => store.enqueue(delivery("sent before")));
    await store.committed();

    const refused: number[] = [];
    // Nothing thrown at the router: the rest of the turn writes nothing, and the turn's posts are answered 503.
    store.atomically(() => {
      for (let n = 0; n < 100; n++) refused.push(store.enqueue(delivery(`big ${n} ${"x".repeat(8000)}`)));
    });
    store.settle(first); // confirmed in the failed turn: written with a later turn
    await assert.rejects(store.committed(), (error: unknown) => {
      assert.ok(error instanceof StateWriteError);
      assert.match(error.message, /cannot write its state file \(SQLITE_FULL: database or disk is full\)/);
      return true;
    });
    assert.equal(store.commit(), false, "the receive of another protocol is told, not thrown at");
    await nextTurn();
    // A second full turn within the minute is counted, not logged.
    store.atomically(() => store.enqueue(delivery(`big again ${"x".repeat(400_000)}`)));
    await assert.rejects(store.committed(), StateWriteError);
    await nextTurn();

    // Room again (the failed turns' rows are gone): a new message gets a number no failed one had.
    const after = store.atomically(() => store.enqueue(delivery("after")));
    await store.committed();
    assert.ok(after > Math.max(...refused), `${after} reuses a number of the failed turn`);
    // The failed turn's messages settle later (their queues had them): nothing of the kept ones goes with them.
    for (const seq of refused) store.settle(seq);
    await nextTurn();
    store.close();

    const failures = lines.filter((line) => line.level === 50);
    assert.equal(failures.length, 1, JSON.stringify(failures));
    assert.match(failures[0]?.msg ?? "", /state file .*s\.db: not written \(SQLITE_FULL: database or disk is full\)/);
    assert.ok(lines.some((line) => /written again after 2 failed write\(s\)/.test(line.msg)));
    const reopened = openSqliteStateStore(path, { idMapSize: 10 });
    t.after(() => reopened.close());
    assert.deepEqual(
      reopened.queued().map((row) => row.message.text),
      ["after"],
      "the settle of the failed turn was written again; none of its rows are kept",
    );
  });

  it("writes confirmations a full disk held back with the next commit, keeping at most MAX_HELD_SETTLES", (t) => {
    const path = join(tempDir(t), "s.db");
    // A child process that ends without closing the store, as a kill -9 would: only what was committed counts.
    const script = [
      `import { pino } from "pino";`,
      `import { openSqliteStateStore } from "./packages/bridge/src/core/sqlite-state-store.ts";`,
      `import { emptyMessage } from "./packages/bridge/src/message.ts";`,
      `const delivery = (text) => ({ account: "irc.net", channel: "#c", gateway: "g", message: emptyMessage({ text }) });`,
      `const nextTurn = () => new Promise((resolve) => setImmediate(resolve));`,
      `const store = openSqliteStateStore(${JSON.stringify(path)}, { idMapSize: 10, maxPageCount: 40 });`,
      `store.reportFailuresTo(pino({ level: "info" }));`,
      `const first = store.atomically(() => store.enqueue(delivery("first")));`,
      `await store.committed();`,
      `store.atomically(() => { for (let n = 0; n < 100; n++) store.enqueue(delivery("big " + "x".repeat(8000))); });`,
      // Confirmations of the failed turn: more than are held, the one of a kept row last (the newest is kept).
      `for (let n = 0; n < ${MAX_HELD_SETTLES + 5}; n++) store.settle(1_000_000 + n);`,
      `store.settle(first);`,
      `await store.committed().catch(() => {});`,
      `await nextTurn();`,
      // Room again: the next commit (a routed message, no confirmation) takes the held ones with it.
      `store.atomically(() => store.enqueue(delivery("after")));`,
      `await store.committed();`,
      `for (let n = 0; n < 3; n++) await nextTurn();`,
      `process.exit(0);`,
    ];
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script.join("\n")], {
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(child.status, 0, child.stderr);
    assert.match(child.stdout, /written again after 1 failed write\(s\); 6 confirmation\(s\) could not be kept/);
    const reopened = openSqliteStateStore(path, { idMapSize: 10 });
    t.after(() => reopened.close());
    assert.deepEqual(
      reopened.queued().map((row) => row.message.text),
      ["after"],
      "the confirmation held back by the failed turn was written with the next commit",
    );
  });

  it("never numbers an unread message as one a dropped turn had, so a client's read cannot remove it", async (t) => {
    const path = join(tempDir(t), "s.db");
    const store = openSqliteStateStore(path, { idMapSize: 10, maxPageCount: 40 });
    const log = store.unread("api.out", 100);
    store.atomically(() => log.append("read"));
    await store.committed();
    // Written, then dropped with its turn when the next write of the turn finds the file full.
    store.atomically(() => log.append("dropped"));
    store.atomically(() => log.append(`too big ${"x".repeat(400_000)}`));
    await assert.rejects(store.committed(), StateWriteError);
    await nextTurn();
    // The client reads all three (two from memory); a message arrives before that read is written.
    log.readAll();
    store.atomically(() => log.append("unread"));
    await store.committed();
    await nextTurn();
    store.close();
    const reopened = openSqliteStateStore(path, { idMapSize: 10 });
    t.after(() => reopened.close());
    assert.deepEqual(reopened.unread("api.out", 100).restore(), ["unread"]);
  });

  it("refuses a file another bridge holds open", (t) => {
    const path = join(tempDir(t), "s.db");
    const first = openSqliteStateStore(path, { idMapSize: 10 });
    t.after(() => first.close());
    refused(path, /in use by another process/);
  });

  it("defaults to <config name>.state.db beside the config; a relative path is beside it too; empty is none", () => {
    assert.equal(stateFilePath(undefined, "/etc/sb/matterbridge.toml"), "/etc/sb/matterbridge.state.db");
    assert.equal(stateFilePath("data/s.db", "/etc/sb/matterbridge.toml"), "/etc/sb/data/s.db");
    assert.equal(stateFilePath("/var/lib/s.db", "/etc/sb/matterbridge.toml"), "/var/lib/s.db");
    assert.equal(stateFilePath("", "/etc/sb/matterbridge.toml"), undefined);
  });
});
