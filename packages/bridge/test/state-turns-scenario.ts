// Scenarios for the state store's property tests (state-store-turns.test.ts): steps as the router and the queues
// take them (a message queued with its id-map entry, a confirmation with its copy's id, the end of a turn, a commit
// asked for, a read), played against a store and a model of what its file must hold. Also run in a child process.
import assert from "node:assert/strict";
import fc from "fast-check";
import type { StateStore, StoredCopy } from "../src/core/state-store.ts";
import { emptyMessage } from "../src/message.ts";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** One step of a scenario. `pick` chooses among the messages queued so far (modulo their count). */
export type Step =
  | { kind: "queue"; text: string; copyOf: boolean }
  | { kind: "confirm"; pick: number; id: string }
  | { kind: "turn" }
  | { kind: "commit" }
  | { kind: "read" };

export const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("queue" as const),
      // Now and then a text long enough that the held rows are written before the commit.
      text: fc.oneof({ weight: 20, arbitrary: fc.string({ maxLength: 40 }) }, fc.constant("x".repeat(300_000))),
      copyOf: fc.boolean(),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant("confirm" as const), pick: fc.nat(), id: fc.string({ maxLength: 8 }) }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: "turn" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "commit" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "read" as const }) },
);

/** What the file should hold: the unconfirmed messages by number, and each id-map entry's copies. */
export interface Model {
  queued: Map<number, string>;
  copies: Map<string, StoredCopy[]>;
}

/** Runs the steps against a store and the model, as the router does (a queued copy saved in the id map first). */
export async function play(store: StateStore, steps: readonly Step[], model: Model): Promise<void> {
  const sent: { seq: number; key: string | undefined }[] = [];
  for (const [n, s] of steps.entries()) {
    if (s.kind === "queue") {
      const key = s.copyOf ? `src ${n}` : undefined;
      const seq = store.atomically(() => {
        if (key !== undefined) store.saveCopies("g", key, [{ account: "irc.net", channel: "#c", id: "" }]);
        return store.enqueue({
          account: "irc.net",
          channel: "#c",
          gateway: "g",
          message: emptyMessage({ text: s.text }),
          ...(key === undefined ? {} : { copyOf: key }),
        });
      });
      if (key !== undefined) model.copies.set(key, [{ account: "irc.net", channel: "#c", id: "" }]);
      model.queued.set(seq, s.text);
      sent.push({ seq, key });
    } else if (s.kind === "confirm" && sent.length > 0) {
      // Any message, confirmed once or again (a replayed one), in this turn or a later one.
      const { seq, key } = sent[s.pick % sent.length] as { seq: number; key: string | undefined };
      const copy = key === undefined ? undefined : { gateway: "g", key, account: "irc.net", channel: "#c", id: s.id };
      store.settle(seq, copy);
      model.queued.delete(seq);
      if (key !== undefined) model.copies.set(key, [{ account: "irc.net", channel: "#c", id: s.id }]);
    } else if (s.kind === "turn") {
      await nextTurn();
    } else if (s.kind === "commit") {
      assert.equal(store.commit(), true);
    } else if (s.kind === "read") {
      // A read in the middle of a turn sees the turn's writes, held or not.
      assert.deepEqual(
        store.queued().map((row) => [row.seq, row.message.text]),
        [...model.queued],
      );
    }
  }
}
