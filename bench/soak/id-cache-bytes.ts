// Bytes of live heap per source message the bridge's id map (packages/bridge/src/core/id-cache.ts) remembers,
// filled the way the router fills it: copies pushed one by one into a fresh array, each queued copy with a pending
// promise until its destination confirms it. Run with --expose-gc so that "live" means after a full collection:
//   node --expose-gc --import tsx bench/soak/id-cache-bytes.ts [--entries 5000] [--root DIR]
// --root points at another checkout (a worktree of an earlier commit) to measure its id-cache.ts instead.
// Two shapes: the soak's (an XMPP line with a stanza id, one copy queued for IRC, which answers no id) and a
// message copied to three destinations that all answer an id (every copy in the index).
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

interface CopyId {
  readonly account: string;
  readonly channel: string;
  readonly id: string;
  pending?: Promise<string> | undefined;
}
interface Cache {
  get(key: string): CopyId[] | undefined;
  set(key: string, copies: CopyId[]): void;
  confirm(key: string | undefined, copy: CopyId, id: string): void;
  readonly size: number;
}
interface CacheModule {
  MessageIdCache: new (capacity?: number) => Cache;
  cacheKey(account: string, id: string): string;
}

const { values } = parseArgs({ options: { entries: { type: "string", default: "5000" }, root: { type: "string" } } });
const entries = Number(values.entries);
const root = resolve(values.root ?? new URL("../..", import.meta.url).pathname);
const { MessageIdCache, cacheKey } = (await import(
  pathToFileURL(resolve(root, "packages/bridge/src/core/id-cache.ts")).href
)) as CacheModule;

const collect = globalThis.gc;
if (collect === undefined) throw new Error("run with node --expose-gc");

interface Shape {
  name: string;
  source: string;
  /** Destination account and the id it answers for a copy ("" for none). */
  destinations: { account: string; answer: () => string }[];
}
/** A fresh id as a parser hands it over: one flat string (randomUUID's own is a tree of concatenations). */
const parsedId = () => JSON.parse(`"${randomUUID()}"`) as string;
const shapes: Shape[] = [
  {
    name: "soak: XMPP line, one copy to IRC (no id)",
    source: "xmpp.soak",
    destinations: [{ account: "irc.soak", answer: () => "" }],
  },
  {
    name: "three copies, each with an id",
    source: "slack.team",
    destinations: ["discord.guild", "matrix.home", "xmpp.room"].map((account) => ({ account, answer: parsedId })),
  },
];

/**
 * Fills `cache` with `count` messages of `shape` as the router does, and lets every queued copy be confirmed. The
 * array of copies is handed over as pushed (room for 17) or `sized` to its copies.
 */
async function fill(cache: Cache, shape: Shape, count: number, sized: boolean): Promise<void> {
  for (let i = 0; i < count; i++) {
    const key = cacheKey(shape.source, parsedId());
    // The router looks the key up first (an edit of a known message has its copies).
    if (cache.get(key) !== undefined) throw new Error("a fresh id was known");
    const copies: CopyId[] = [];
    const confirmations: Promise<void>[] = [];
    for (const destination of shape.destinations) {
      const pending = Promise.resolve().then(destination.answer);
      const copy: CopyId = { account: destination.account, channel: "#room", id: "", pending };
      confirmations.push(pending.then((id) => cache.confirm(key, copy, id)));
      copies.push(copy);
    }
    cache.set(key, sized ? copies.slice() : copies);
    await Promise.all(confirmations);
  }
}

async function liveHeap(): Promise<number> {
  await new Promise(setImmediate);
  collect?.();
  collect?.();
  return process.memoryUsage().heapUsed;
}

/** Live bytes per entry of a cache filled with `entries` messages of `shape`; the cache is garbage on return. */
async function bytesPerEntry(shape: Shape, sized: boolean): Promise<number> {
  // A first fill compiles and optimizes everything on the path, so that the measured one allocates data only.
  await fill(new MessageIdCache(entries), shape, entries, sized);
  const before = await liveHeap();
  const cache = new MessageIdCache(entries);
  await fill(cache, shape, entries, sized);
  const after = await liveHeap();
  if (cache.size !== entries) throw new Error(`the cache holds ${cache.size} entries, not ${entries}`);
  return (after - before) / entries;
}

console.log(`id map bytes per remembered message (${entries} entries, ${root})`);
for (const shape of shapes) {
  for (const sized of [false, true]) {
    // The median of three fills: a collection that misses some garbage once shows as an outlier, not a result.
    const runs = [
      await bytesPerEntry(shape, sized),
      await bytesPerEntry(shape, sized),
      await bytesPerEntry(shape, sized),
    ];
    const bytes = runs.sort((a, b) => a - b)[1] as number;
    console.log(`  ${shape.name}, copies ${sized ? "sized" : "as pushed"}: ${bytes.toFixed(0)} bytes per entry`);
  }
}
