// The id cache's copy index: `canonical` (the source of a reply to a copy) is one lookup, and the index follows
// every insert, confirmation and eviction. Checked against the plain scan it replaces, over random sequences.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type CopyId, cacheKey, MessageIdCache } from "../src/core/id-cache.ts";

/** The cache as it was: an LRU map, `canonical` scanning every entry's copies, oldest first. */
class ScanModel {
  readonly entries = new Map<string, CopyId[]>();
  constructor(readonly capacity: number) {}
  get(key: string): CopyId[] | undefined {
    const copies = this.entries.get(key);
    if (copies !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, copies);
    }
    return copies;
  }
  set(key: string, copies: CopyId[]): void {
    this.entries.delete(key);
    this.entries.set(key, copies);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
  canonical(account: string, id: string): string | undefined {
    const key = cacheKey(account, id);
    if (this.entries.has(key)) return key;
    if (id === "") return undefined;
    for (const [source, copies] of this.entries) {
      if (copies.some((copy) => copy.account === account && copy.id === id)) return source;
    }
    return undefined;
  }
  /** The distinct copy keys with a known id: what the index must hold, no more. */
  copyKeys(): number {
    const keys = new Set<string>();
    for (const copies of this.entries.values()) {
      for (const copy of copies) if (copy.id !== "") keys.add(cacheKey(copy.account, copy.id));
    }
    return keys.size;
  }
}

const accounts = ["irc.a", "slack.b", "xmpp.c"];
const ids = ["", "1", "2", "3", "4", "5"];
const sources = ["s1", "s2", "s3", "s4", "s5", "s6", "s7"];

const copyArb = fc.record({
  account: fc.constantFrom(...accounts),
  channel: fc.constantFrom("#x", "#y"),
  id: fc.constantFrom(...ids),
});
const opArb = fc.oneof(
  fc.record({
    op: fc.constant("set" as const),
    key: fc.constantFrom(...sources),
    copies: fc.array(copyArb, { maxLength: 4 }),
  }),
  fc.record({ op: fc.constant("get" as const), key: fc.constantFrom(...sources) }),
  fc.record({ op: fc.constant("confirm" as const), pick: fc.nat(), id: fc.constantFrom(...ids) }),
  fc.record({
    op: fc.constant("canonical" as const),
    account: fc.constantFrom(...accounts),
    id: fc.constantFrom(...ids, "s1"),
  }),
);

describe("message id cache: the copy index", () => {
  it("answers canonical() as the scan did, and holds exactly the copies of the entries kept", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(opArb, { maxLength: 80 }), (capacity, ops) => {
        const cache = new MessageIdCache(capacity);
        const model = new ScanModel(capacity);
        // Every copy handed to the cache, with the key it was stored under (evicted ones too: a queue still
        // confirms a copy whose entry is gone).
        const handed: { key: string; copy: CopyId }[] = [];
        for (const step of ops) {
          if (step.op === "set") {
            // Each source message's copies are its own objects, shared by the cache and the model as in the router.
            const copies: CopyId[] = step.copies.map((c) => ({ ...c }));
            for (const copy of copies) handed.push({ key: step.key, copy });
            cache.set(step.key, copies);
            model.set(step.key, copies);
          } else if (step.op === "get") {
            assert.equal(cache.get(step.key), model.get(step.key));
          } else if (step.op === "confirm") {
            const target = handed[step.pick % Math.max(1, handed.length)];
            if (target === undefined) continue;
            // The router confirms with the key the copy was stored under: it may be gone, or hold newer copies.
            cache.confirm(target.key, target.copy, step.id);
          } else {
            assert.equal(cache.canonical(step.account, step.id), model.canonical(step.account, step.id));
          }
          assert.equal(cache.size, model.entries.size);
          assert.equal(cache.indexed, model.copyKeys());
        }
        for (const account of accounts) {
          for (const id of ids) assert.equal(cache.canonical(account, id), model.canonical(account, id));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("forgets the copies of an evicted entry, and learns a copy's id when it is confirmed", () => {
    const cache = new MessageIdCache(2);
    const pending: CopyId = { account: "slack.b", channel: "#x", id: "", pending: new Promise<string>(() => {}) };
    cache.set("irc.a m1", [{ account: "slack.b", channel: "#x", id: "c1" }]);
    cache.set("irc.a m2", [pending]);
    assert.equal(cache.canonical("slack.b", "c1"), "irc.a m1");
    assert.equal(cache.canonical("slack.b", "c2"), undefined);
    cache.confirm("irc.a m2", pending, "c2");
    assert.equal(pending.id, "c2");
    assert.equal(pending.pending, undefined);
    assert.equal(cache.canonical("slack.b", "c2"), "irc.a m2");
    assert.equal(cache.indexed, 2);
    cache.set("irc.a m3", []);
    assert.equal(cache.canonical("slack.b", "c1"), undefined);
    assert.equal(cache.canonical("slack.b", "c2"), "irc.a m2");
    cache.set("irc.a m4", []);
    assert.equal(cache.canonical("slack.b", "c2"), undefined);
    assert.equal(cache.indexed, 0);
    // A copy confirmed after its entry was evicted gets its id, and indexes nothing.
    const late: CopyId = { account: "slack.b", channel: "#x", id: "" };
    cache.confirm("irc.a gone", late, "c9");
    assert.equal(late.id, "c9");
    assert.equal(cache.canonical("slack.b", "c9"), undefined);
    assert.equal(cache.indexed, 0);
  });

  it("finds the source among 5,000 entries through the index", () => {
    const cache = new MessageIdCache();
    for (let i = 0; i < 6000; i++) cache.set(`irc.a m${i}`, [{ account: "slack.b", channel: "#x", id: `c${i}` }]);
    assert.equal(cache.size, 5000);
    assert.equal(cache.indexed, 5000);
    assert.equal(cache.canonical("slack.b", "c999"), undefined);
    assert.equal(cache.canonical("slack.b", "c1000"), "irc.a m1000");
    assert.equal(cache.canonical("slack.b", "c5999"), "irc.a m5999");
  });
});
