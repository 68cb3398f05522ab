// The soak's arithmetic, ledger and report on made-up samples: no processes, no timing.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { growthBeyondJitter } from "./handle-growth.ts";
import { Ledger } from "./ledger.ts";
import { Outcomes } from "./outcomes.ts";
import { figures, goals, renderReport, type SoakResult } from "./report.ts";
import { figuresOf, GATEWAY_METRICS, STANDARD_METRICS } from "./sampler.ts";
import { mbPerHour, type Sample, slopePerSecond } from "./stats.ts";

const MB = 1024 * 1024;

/** Heap growing by `mbPerHour`, with a sawtooth on top (as a collector makes), every 10 s for an hour. */
function series(mbPerHourGrowth: number, handles: (t: number) => number = () => 10): Sample[] {
  return Array.from({ length: 360 }, (_, i) => {
    const t = i * 10;
    const heap = 30 * MB + (mbPerHourGrowth * MB * t) / 3600 + (i % 6) * 0.5 * MB;
    return { t, heapUsedBytes: heap, rssBytes: heap + 60 * MB, handles: handles(t), timers: 3 };
  });
}

function result(gatewayGrowth: number, lost: number): SoakResult {
  const counts = {
    done: { chat: 10 },
    expected: {},
    unexpected: {},
    examples: [],
    logWarnings: 0,
    logErrors: 0,
    logMessages: [],
  };
  /** Quiet moments every 10 minutes after warm-up: the live heap grows by `growth` MB/hour, the handles stay. */
  const quiet = (handles: number, growth = 0): Sample[] =>
    [720, 1320, 1920, 2520, 3120, 3600].map((t, i) => ({
      t,
      heapUsedBytes: 20 * MB + (growth * MB * t) / 3600,
      handles,
      resources: { TCPSocketWrap: handles, Timeout: 3 + i },
    }));
  return {
    startedAt: "2026-11-25T17:00:00.000Z",
    minutes: 60,
    warmupSeconds: 720,
    sampleSeconds: 10,
    processes: [
      { name: "gateway", samples: series(gatewayGrowth), quiet: quiet(8, gatewayGrowth), scrapeFailures: 0 },
      { name: "bridge", samples: series(0), quiet: quiet(10), scrapeFailures: 0 },
      { name: "baseline", samples: series(0), quiet: quiet(4), scrapeFailures: 0 },
    ],
    gateway: {
      ...counts,
      expectedServerErrors: { "unreachable@flappy": 3 },
      unexpectedServerErrors: {},
      flapTransitions: 20,
    },
    bridge: {
      ...counts,
      ledger: {
        accepted: 100,
        expected: 320,
        lost,
        duplicated: 0,
        unexpected: 0,
        lostByDestination: lost ? { irc: lost } : {},
        lostExamples: [],
      },
      drained: true,
      dropped: 0,
      restarts: { irc: 8, xmpp: 7 },
    },
    machine: { cpus: 2, loadBefore: [1, 1, 1], loadAfter: [2, 2, 2] },
    snapshots: {},
  };
}

/** The run of `result` with the bridge's quiet moments every 10 minutes from warm-up, these handles at each. */
function withBridgeHandles(counts: number[]): SoakResult {
  const run = result(0, 0);
  const bridge = run.processes[1];
  if (bridge)
    bridge.quiet = counts.map((handles, i) => ({
      t: 720 + i * 600,
      heapUsedBytes: 20 * MB,
      handles,
      resources: { TCPSocketWrap: handles, Timeout: 3 + (i % 2) },
    }));
  return run;
}

describe("soak bench", () => {
  it("finds the least-squares slope, through a sawtooth", () => {
    assert.equal(
      slopePerSecond([
        { t: 0, y: 1 },
        { t: 1, y: 3 },
        { t: 2, y: 5 },
      ]),
      2,
    );
    assert.equal(slopePerSecond([{ t: 0, y: 1 }]), undefined);
    const slope = mbPerHour(series(5), "heapUsedBytes", 720);
    assert.ok(slope !== undefined && Math.abs(slope - 5) < 0.2, `slope ${slope}`);
    assert.ok(Math.abs(mbPerHour(series(0), "heapUsedBytes", 720) ?? 99) < 0.2);
  });

  it("reads heap, handles (timers apart) and loop delay from each service's /metrics", () => {
    const gateway = [
      'gateway_process_heap_bytes{kind="used"} 31457280',
      'gateway_process_heap_bytes{kind="total"} 41943040',
      'gateway_event_loop_delay_seconds{statistic="p99"} 0.012',
      'nodejs_active_resources{type="TCPSocketWrap"} 7',
      'nodejs_active_resources{type="TCPServerWrap"} 1',
      'nodejs_active_resources{type="Timeout"} 4',
    ].join("\n");
    assert.deepEqual(figuresOf(gateway, GATEWAY_METRICS), {
      resources: { TCPSocketWrap: 7, TCPServerWrap: 1, Timeout: 4 },
      heapUsedBytes: 31457280,
      loopDelayP99Seconds: 0.012,
      handles: 8,
      timers: 4,
    });
    const bridge = '# HELP x\nnodejs_heap_size_used_bytes 1000\nnodejs_eventloop_delay_seconds{statistic="p99"} 0.01\n';
    const read = figuresOf(bridge, STANDARD_METRICS);
    assert.equal(read.heapUsedBytes, 1000);
    assert.equal(read.handles, undefined, "no nodejs_active_resources: unknown, not 0");
  });

  it("counts lost and duplicated deliveries, and arrivals before the send was recorded", () => {
    const ledger = new Ledger();
    const a = ledger.text("api");
    const b = ledger.text("irc");
    assert.match(a.text, /^soak-a-0 /);
    ledger.arrived("api-stream", `poster: ${a.text}`); // before its POST answered
    ledger.accepted(a.tag, ["api-stream", "irc", "xmpp"]);
    ledger.accepted(b.tag, ["api-stream", "xmpp"]);
    ledger.arrived("irc", a.text);
    ledger.arrived("irc", a.text);
    ledger.arrived("xmpp", b.text);
    ledger.arrived("xmpp", "soak-x-99 never sent");
    ledger.arrived("xmpp", "no tag at all");
    assert.equal(ledger.missing(), 2);
    const summary = ledger.summary();
    assert.equal(summary.accepted, 2);
    assert.equal(summary.expected, 5);
    assert.equal(summary.lost, 2);
    assert.equal(summary.duplicated, 1);
    assert.equal(summary.unexpected, 1);
    assert.deepEqual(summary.lostByDestination, { xmpp: 1, "api-stream": 1 });
  });

  it("judges the goals: a growing heap and a lost message fail, flat ones pass", () => {
    const flat = goals(result(0, 0));
    assert.ok(
      flat.every((goal) => goal.met),
      JSON.stringify(flat),
    );
    const leaking = goals(result(5, 2));
    assert.equal(leaking.find((g) => g.goal.startsWith("gateway: heap"))?.met, false);
    assert.equal(leaking.find((g) => g.goal.startsWith("bridge: heap"))?.met, true);
    assert.equal(leaking.find((g) => g.goal === "zero lost bridge messages")?.met, false);
    const grown = result(0, 0);
    for (const quiet of grown.processes[0]?.quiet.slice(-2) ?? []) {
      quiet.resources = { TCPSocketWrap: 11, Timeout: 9 };
      quiet.handles = 11;
    }
    assert.deepEqual(figures(grown.processes[0] as never, 720).grown, ["TCPSocketWrap +3"]);
    assert.equal(goals(grown).find((g) => g.goal.startsWith("gateway: no handle"))?.met, false);
  });

  it("calls a handle count that moves between 10 and 11 no growth, and shows every quiet count", () => {
    const moving = withBridgeHandles([10, 11, 10, 11, 11, 11, 10, 10, 11]);
    const goal = goals(moving).find((g) => g.goal.startsWith("bridge: no handle"));
    assert.equal(goal?.met, true, JSON.stringify(goal));
    assert.match(goal?.detail ?? "", /^10, 11, 10, 11, 11, 11, 10, 10, 11 \(/);
    assert.deepEqual(figures(moving.processes[1] as never, 720).grown, []);
    assert.match(renderReport(moving), /^\| bridge \|.*\| 10, 11, 10, 11, 11, 11, 10, 10, 11 \|/m);
  });

  it("calls a steady leak of one handle per quiet moment growth, however many moments", () => {
    const leaking = withBridgeHandles([10, 11, 12, 13, 14, 15, 16, 17, 18]);
    const goal = goals(leaking).find((g) => g.goal.startsWith("bridge: no handle"));
    assert.equal(goal?.met, false, JSON.stringify(goal));
    assert.match(goal?.detail ?? "", /^10, 11, 12, 13, 14, 15, 16, 17, 18 \(TCPSocketWrap \+4\)/);
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.nat(50), (moments, from) => {
        const counts = Array.from({ length: moments }, (_, i) => from + i);
        assert.ok((growthBeyondJitter(counts) ?? 0) > 0, counts.join(" "));
      }),
    );
    // From 5 moments on, a leak shows through a socket that is open at some quiet moments and not at others.
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 5, maxLength: 40 }), (open) => {
        const counts = open.map((isOpen, i) => 10 + i + (isOpen ? 1 : 0));
        assert.ok((growthBeyondJitter(counts) ?? 0) > 0, counts.join(" "));
      }),
    );
  });

  it("judges the heap goal on the unrounded slope and prints digits enough to agree with it", () => {
    const heapGoal = (growth: number) => {
      const run = result(growth, 0);
      const goal = goals(run).find((g) => g.goal.startsWith("gateway: heap"));
      const row = renderReport(run).match(/^\| gateway \| ([^|]+) \|/m)?.[1];
      return { met: goal?.met, detail: goal?.detail, row };
    };
    const over = heapGoal(1.004);
    assert.equal(over.met, false);
    assert.match(over.detail ?? "", /^1\.004 MB\/hour/);
    assert.equal(over.row, "+1.004");
    const under = heapGoal(0.996);
    assert.equal(under.met, true);
    assert.match(under.detail ?? "", /^0\.996 MB\/hour/);
    assert.equal(under.row, "+0.996");
    const justUnder = heapGoal(0.99999);
    assert.equal(justUnder.met, true);
    assert.equal(justUnder.row, "+0.99999");
    assert.equal(heapGoal(0.91).row, "+0.91", "two digits where they cannot mislead");
  });

  it("prints a row per process with the difference to the baseline, and the verdict", () => {
    const text = renderReport(result(5, 0));
    for (const name of ["gateway", "bridge", "baseline"]) assert.match(text, new RegExp(`^\\| ${name} \\|`, "m"));
    assert.match(text, /^\| gateway \| \+5\.00 \| 21\.00 -> 25\.00 \| \+5\.00 \| \+5\.\d\d \|/m);
    assert.match(text, /NOT MET gateway: heap slope/);
    assert.match(text, /MET {5}zero lost bridge messages: 0 lost of 320 deliveries/);
  });

  it("says what a failed client's socket saw, not only that it failed", async () => {
    const outcomes = new Outcomes();
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    await outcomes.track("api-poll", () => Promise.reject(new TypeError("fetch failed", { cause: reset })));
    await outcomes.track("api-poll", () =>
      Promise.reject(new Error("closed", { cause: new Error("other side closed") })),
    );
    await outcomes.track("api-poll", () => Promise.reject(new Error("plain")));
    await outcomes.track("api-poll", async () => ({}));
    assert.deepEqual(
      outcomes.examples.map((line) => line.slice(line.indexOf(" ") + 1)),
      [
        "api-poll: fetch failed (ECONNRESET: read ECONNRESET)",
        "api-poll: closed (other side closed)",
        "api-poll: plain",
      ],
    );
    assert.equal(outcomes.unexpected.get("api-poll"), 3);
    assert.equal(outcomes.done.get("api-poll"), 4);
  });
});
