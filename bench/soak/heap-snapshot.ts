// Heap snapshots of the soak's processes, taken through --heapsnapshot-signal (no inspector): a snapshot begins with
// a full garbage collection, so the heap a scrape reads right after one is the live heap, without the garbage a
// sample at a random moment of the collector's cycle includes. When the live heap grows, compare-heaps.ts (or Chrome
// DevTools: Memory, Comparison) says with what, between any two quiet moments.
import { readdirSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The flag every sampled process is started with; the snapshot is written into the process's working directory. */
export const SNAPSHOT_FLAG = "--heapsnapshot-signal=SIGUSR2";
const TIMEOUT_MS = 120_000;

const filesOf = (dir: string, pid: number) =>
  readdirSync(dir).filter((name) => name.endsWith(".heapsnapshot") && name.includes(`.${pid}.`));

/** A snapshot file is complete when it ends its JSON object and stops growing. */
async function complete(file: string): Promise<boolean> {
  const size = statSync(file).size;
  if (size < 2) return false;
  const handle = await open(file, "r");
  try {
    const tail = Buffer.alloc(2);
    await handle.read(tail, 0, 2, size - 2);
    if (!tail.toString("latin1").includes("}")) return false;
  } finally {
    await handle.close();
  }
  await sleep(500);
  return statSync(file).size === size;
}

/** Signals `pid` and waits (bounded) until its new snapshot is written; resolves with its path, or undefined. */
export async function takeHeapSnapshot(pid: number, dir: string): Promise<string | undefined> {
  const before = new Set(filesOf(dir, pid));
  process.kill(pid, "SIGUSR2");
  const deadline = Date.now() + TIMEOUT_MS;
  while (Date.now() < deadline) {
    await sleep(250);
    const name = filesOf(dir, pid).find((file) => !before.has(file));
    if (name !== undefined && (await complete(join(dir, name)))) return join(dir, name);
  }
  return undefined;
}
