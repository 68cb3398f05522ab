import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { type Cuttable, ShutdownSignal } from "../../src/dispatch/shutdown.ts";

/** A request in flight whose cut records its name. */
function request(name: string, cuts: string[]): Cuttable {
  return { cut: () => cuts.push(name), olderInFlight: undefined, newerInFlight: undefined };
}

describe("ShutdownSignal", () => {
  it("cuts what entered and has not left when the grace period ends, and only that", () => {
    const signal = new ShutdownSignal();
    const cuts: string[] = [];
    const running = request("running", cuts);
    const settled = request("settled", cuts);
    signal.enter(running);
    signal.enter(settled);
    signal.leave(settled);
    signal.cutNow();
    assert.deepEqual(cuts, ["running"]);
    signal.leave(running);
    assert.equal(signal.cut, 0, "counting is the cut function's business");
  });

  it("cuts exactly the requests in flight, whatever the order they entered and left in", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.nat(19)), { maxLength: 60 }),
        fc.array(fc.nat(19), { maxLength: 10 }),
        (steps, leftTwice) => {
          const signal = new ShutdownSignal();
          const cuts: string[] = [];
          const requests = Array.from({ length: 20 }, (_, index) => request(String(index), cuts));
          const inFlight = new Set<string>();
          for (const [enters, index] of steps) {
            const entry = requests[index] as Cuttable;
            // A request enters once; a leave without an enter, or a second one, changes nothing.
            if (enters && !inFlight.has(String(index)) && entry.olderInFlight === undefined) {
              signal.enter(entry);
              inFlight.add(String(index));
            } else if (!enters) {
              signal.leave(entry);
              inFlight.delete(String(index));
            }
          }
          for (const index of leftTwice) {
            if (inFlight.has(String(index))) continue;
            signal.leave(requests[index] as Cuttable);
          }
          signal.cutNow();
          assert.deepEqual(new Set(cuts), inFlight);
          assert.equal(cuts.length, inFlight.size, "each cut once");
        },
      ),
    );
  });

  it("lets a request that is cut leave the list while the others are cut", () => {
    const signal = new ShutdownSignal();
    const cuts: string[] = [];
    const requests = ["a", "b", "c"].map((name) => request(name, cuts));
    for (const entry of requests) {
      const cut = entry.cut;
      entry.cut = () => {
        cut();
        signal.leave(entry);
      };
      signal.enter(entry);
    }
    signal.cutNow();
    assert.deepEqual(cuts.sort(), ["a", "b", "c"]);
  });

  it("cuts at once what enters after the grace period ended", () => {
    const signal = new ShutdownSignal();
    signal.cutNow();
    const cuts: string[] = [];
    signal.enter(request("late", cuts));
    assert.deepEqual(cuts, ["late"]);
  });

  it("keeps no request alive through young collections once it has left (a Set did: see shutdown.ts)", (t) => {
    const majorCollections = (structure: "signal" | "set") => {
      const output = execFileSync(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", CHURN, structure],
        { encoding: "utf8", cwd: fileURLToPath(new URL("../..", import.meta.url)), timeout: 60_000 },
      );
      return Number(output.trim());
    };
    // The same churn through a Set shows whether this V8 promotes through replaced hash tables at all.
    const throughSet = majorCollections("set");
    if (throughSet < 5)
      return t.skip(`this V8 no longer promotes through a churned Set (${throughSet} full collections)`);
    const throughSignal = majorCollections("signal");
    assert.ok(throughSignal <= 2, `${throughSignal} full collections (a Set: ${throughSet})`);
  });
});

/**
 * Requests enter and leave (32 in flight, each holding about 2 KB) after a quiet spell in which the structure's storage
 * reaches the old generation; prints the number of full collections. Objects that die young cost none.
 */
const CHURN = `
import { PerformanceObserver, constants } from "node:perf_hooks";
import { ShutdownSignal } from "${fileURLToPath(new URL("../../src/dispatch/shutdown.ts", import.meta.url))}";
const structure = process.argv[1];
let major = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major++;
}).observe({ entryTypes: ["gc"] });
const signal = new ShutdownSignal();
const set = new Set();
const inFlight = [];
const start = () => {
  const payload = Array.from({ length: 50 }, (_, i) => ({ i }));
  const entry = { cut: () => payload.length, olderInFlight: undefined, newerInFlight: undefined };
  if (structure === "set") set.add(entry);
  else signal.enter(entry);
  inFlight.push(entry);
  if (inFlight.length > 32) {
    const done = inFlight.shift();
    if (structure === "set") set.delete(done);
    else signal.leave(done);
  }
};
for (let i = 0; i < 5; i++) start();
let garbage = [];
for (let i = 0; i < 2e6; i++) { garbage.push({ i }); if (garbage.length > 1000) garbage = []; }
for (let i = 0; i < 300000; i++) start();
setTimeout(() => console.log(major), 50);
`;
