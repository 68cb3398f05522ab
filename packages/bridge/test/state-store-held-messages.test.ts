// A queued message's row is encoded only if it is written (core/turn-rows.ts): a message without Extra is held as a
// snapshot until the turn commits. Whatever the message holds, and whatever happens to the object once it is queued
// (the router fills in a copy's ids later), the file must hold the message exactly as it was when it was queued, as
// when every row was encoded at once.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import fc from "fast-check";
import { openSqliteStateStore } from "../src/core/sqlite-state-store.ts";
import { emptyMessage, MESSAGE_FIELDS, type Message } from "../src/message.ts";

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "state-held-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const STRING_FIELDS = MESSAGE_FIELDS.filter((field) => field !== "Extra");
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: fc.constantFrom("a", '"', "\\", "\n", "\u0000", "\ud83d", "\ude00", "é", " ") }),
);
const messageArb: fc.Arbitrary<Message> = fc
  .record({
    values: fc.tuple(...STRING_FIELDS.map(() => text)),
    Extra: fc.oneof(
      fc.constant(null),
      fc.constant(null),
      fc.dictionary(fc.string(), fc.array(fc.jsonValue(), { maxLength: 2 })),
    ),
  })
  .map(({ values, Extra }) =>
    emptyMessage({ ...Object.fromEntries(STRING_FIELDS.map((f, i) => [f, values[i]])), Extra }),
  );

describe("held messages of the state file", () => {
  it("are written as they were queued, whatever changes the objects before the commit", (t) => {
    const dir = tempDir(t);
    let run = 0;
    fc.assert(
      fc.property(fc.array(messageArb, { minLength: 1, maxLength: 6 }), fc.array(fc.boolean()), (messages, changed) => {
        const path = join(dir, `s${run++}.db`);
        const expected = messages.map((message) => JSON.parse(JSON.stringify(message)) as Message);
        const store = openSqliteStateStore(path, { idMapSize: 10 });
        store.atomically(() => {
          for (const message of messages) store.enqueue({ account: "irc.net", channel: "#c", gateway: "g", message });
        });
        // As the router does once an edited message's original is sent: the copy's ids change after it was queued.
        messages.forEach((message, index) => {
          if (changed[index] !== true) return;
          message.id = "changed later";
          message.parent_id = "changed later";
          message.text = "changed later";
        });
        store.commit();
        store.close();
        const reopened = openSqliteStateStore(path, { idMapSize: 10 });
        try {
          assert.deepEqual(
            reopened.queued().map((row) => row.message),
            expected,
          );
        } finally {
          reopened.close();
        }
      }),
      { numRuns: 150 },
    );
  });

  it("hold and write a message whose fields are not all strings (a caller's bug) as it was queued", (t) => {
    const path = join(tempDir(t), "s.db");
    const message = emptyMessage({ text: "odd" });
    Object.assign(message, { id: 5, avatar: null });
    const expected = JSON.parse(JSON.stringify(message)) as Message;
    const store = openSqliteStateStore(path, { idMapSize: 10 });
    store.atomically(() => store.enqueue({ account: "irc.net", channel: "#c", gateway: "g", message }));
    store.commit();
    store.close();
    const reopened = openSqliteStateStore(path, { idMapSize: 10 });
    t.after(() => reopened.close());
    assert.deepEqual(
      reopened.queued().map((row) => row.message),
      [expected],
    );
  });
});
