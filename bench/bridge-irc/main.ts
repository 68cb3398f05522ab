// bench/bridge-irc: the bridge (real bin) between a real ngIRCd channel and an api account, with MessageDelay 0.
// Measures IRC -> api and api -> IRC latency (p50, p99; one message at a time) and sustained messages per second
// (a burst, done when the last one arrived), beside the floor: two raw IRC clients talking through the same
// server. Prints one line per direction with the ratios to the floor.
// Flags: --before DIR (also measure the bridge built in DIR, a checkout of an earlier commit, in the same run: its
//        own channel and api account, rounds alternating with this checkout's) --nice=N (the bridges, ngIRCd and
//        the load generator at nice N, e.g. -10 on a shared machine) --help

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { cpus, loadavg, setPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, startNgircd, startProcess } from "@switchboard/testkit";
import { REPOSITORY_ROOT, serviceBin } from "../service-bin.ts";
import { PipelinedPoster } from "./pipelined-poster.ts";
import { RawIrcClient, sequenceAtEnd } from "./raw-irc-client.ts";

/**
 * Messages sent as a burst before each round's measures: the first thousands of posts run the bridge's code before it
 * is optimised (a first burst after 200 cost 2-3 times the CPU per message of the next ones), so the bursts measured
 * after a short warm-up said more about the JIT than about the bridge.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5_000);
const LATENCY_MESSAGES = Number(process.env.BENCH_LATENCY_MESSAGES ?? 1_000);
const BURST_MESSAGES = Number(process.env.BENCH_MESSAGES ?? 5_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CHANNEL = "#bench";
/** The floor's own channel: no bridge is in it, so none relays the floor's bursts (and is charged for them). */
const FLOOR_CHANNEL = "#floor";
/** api -> IRC bursts: keep-alive connections, and POSTs in flight across them (pipelined). */
const POST_CONNECTIONS = Number(process.env.BENCH_POST_CONNECTIONS ?? 4);
// 256 (64 a connection; the api account serves up to 256 pipelined requests of one connection at once): with 64 the
// round trip of each turn's posts (read, route, write to IRC, commit, answer) bounded a burst as much as the CPU did.
const POSTS_IN_FLIGHT = Number(process.env.BENCH_POSTS_IN_FLIGHT ?? 256);
const TIMEOUT_MS = 60_000;

/** BENCH_BRIDGE_BIN runs another build of the bridge (a copy of an older commit, for a before/after). */
const BIN = process.env.BENCH_BRIDGE_BIN ?? serviceBin(REPOSITORY_ROOT, "bridge");

const { values: flags } = parseArgs({
  options: { before: { type: "string" }, nice: { type: "string" }, help: { type: "boolean", default: false } },
});
if (flags.help) {
  console.log(
    "npm run bench bridge-irc -- [--before DIR] [--nice=N]\n" +
      "  --before DIR  also measure the bridge built in DIR (a worktree of an earlier commit, built), same run\n" +
      "  --nice=N      run the bridges, ngIRCd and this process (the load generator) at nice N (e.g. -10 on a\n" +
      "                shared machine)\n" +
      "Environment: BENCH_MESSAGES, BENCH_WARMUP, BENCH_LATENCY_MESSAGES, BENCH_ROUNDS, BENCH_PATHS (e.g. 'api ->'),\n" +
      "BENCH_BRIDGE_BIN, BENCH_BRIDGE_NODE_ARGS (e.g. --cpu-prof), BENCH_POST_CONNECTIONS, BENCH_POSTS_IN_FLIGHT",
  );
  process.exit(0);
}

interface Result {
  p50: number;
  p99: number;
  rate: number;
  /** CPU (user + system) per burst message, in µs: the bridge's, the load generator's (this process), ngIRCd's. */
  bridgeUs: number;
  benchUs: number;
  serverUs: number;
  /**
   * The machine's busy CPU per burst message beyond those three (/proc/stat): other engineers' work on the shared
   * cores, which slows a burst and inflates its CPU per message (caches, a shared core). A round with much of it is
   * one to distrust.
   */
  otherUs: number;
  /** The bridge's read and write system calls per burst message (/proc/<pid>/io: sockets, the state file, logs). */
  bridgeReads: number;
  bridgeWrites: number;
  /** The same for the load generator (this process), and the part of its CPU spent in the kernel, in µs. */
  benchReads: number;
  benchWrites: number;
  benchSystemUs: number;
}

const TICKS_PER_SECOND = 100;

/** CPU time (user + system, all threads) a process has used, in µs, from /proc/<pid>/stat (clock ticks). */
function processCpuUs(pid: number): number {
  if (pid <= 0) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** The machine's busy CPU time (all CPUs, everything but idle and iowait), in µs, from /proc/stat (clock ticks). */
function machineBusyUs(): number {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "";
    // cpu user nice system idle iowait irq softirq steal ...
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    const ticks = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
    return (ticks * 1e6) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** Read and write system calls a process has made (all threads), from /proc/<pid>/io. */
function processSyscalls(pid: number): { reads: number; writes: number } {
  try {
    const io = readFileSync(`/proc/${pid}/io`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)?.[1] ?? Number.NaN);
    return { reads: field("syscr"), writes: field("syscw") };
  } catch {
    return { reads: Number.NaN, writes: Number.NaN };
  }
}

const ownCpuUs = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/** Counts arrivals of "m<seq>" texts and lets a caller wait for a given count or a given sequence number. */
class Arrivals {
  count = 0;
  /** When each m<seq> arrived (performance.now(), ms), 0 until it has: a typed array, no allocation per message. */
  #times = new Float64Array(1 << 16);
  #waiters: { done: () => boolean; resolve: () => void }[] = [];

  arrived(seq: number): void {
    if (seq >= this.#times.length) {
      const grown = new Float64Array(Math.max(seq + 1, 2 * this.#times.length));
      grown.set(this.#times);
      this.#times = grown;
    }
    this.#times[seq] = performance.now();
    this.count++;
    if (this.#waiters.some((waiter) => waiter.done())) {
      this.#waiters = this.#waiters.filter((waiter) => {
        if (!waiter.done()) return true;
        waiter.resolve();
        return false;
      });
    }
  }

  /** When m<seq> arrived (performance.now(), ms), or undefined. */
  at(seq: number): number | undefined {
    const time = this.#times[seq];
    return time === undefined || time === 0 ? undefined : time;
  }

  /** Throws unless every message from m<first> to m<end - 1> arrived (a count alone would not see one lost). */
  check(first: number, end: number, what: string): void {
    for (let seq = first; seq < end; seq++) {
      if (this.at(seq) === undefined)
        throw new Error(`${what}: m${seq} never arrived (${this.count} arrivals counted)`);
    }
  }

  until(done: () => boolean, what: string): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), TIMEOUT_MS);
      this.#waiters.push({
        done,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }
}

/** One way of sending "m<seq>" and one place where it arrives. */
interface Path {
  name: string;
  arrivals: Arrivals;
  /** Sends in flight at once during a burst (HTTP posts wait for their answer; IRC writes do not). */
  inFlight: number;
  send(seq: number): Promise<void> | void;
  /** Sends `count` messages from `first` on, `inFlight` at once; without it a burst calls send for each. */
  burst?(first: number, count: number): Promise<void>;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

let nextSeq = 0;

/** The processes whose CPU a burst is charged with. */
interface Pids {
  bridge: number;
  server: number;
}

async function measure(path: Path, pids: Pids): Promise<Result> {
  const arrivals = path.arrivals;
  const burst = async (count: number) => {
    const first = nextSeq;
    const target = arrivals.count + count;
    const end = nextSeq + count;
    if (path.burst !== undefined) {
      nextSeq = end;
      await path.burst(first, count);
    } else {
      await Promise.all(
        Array.from({ length: path.inFlight }, async () => {
          while (nextSeq < end) await path.send(nextSeq++);
        }),
      );
    }
    await arrivals.until(() => arrivals.count >= target, `${path.name}: ${count} messages from m${first}`);
    return () => arrivals.check(first, end, path.name);
  };
  (await burst(WARMUP))();
  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_MESSAGES; i++) {
    const seq = nextSeq++;
    const sent = performance.now();
    await path.send(seq);
    await arrivals.until(() => arrivals.at(seq) !== undefined, `${path.name}: m${seq}`);
    latencies.push((arrivals.at(seq) ?? sent) - sent);
  }
  latencies.sort((a, b) => a - b);
  const cpuBefore = [processCpuUs(pids.bridge), ownCpuUs(), processCpuUs(pids.server), machineBusyUs()];
  const syscallsBefore = processSyscalls(pids.bridge);
  const ownSyscallsBefore = processSyscalls(process.pid);
  const ownSystemBefore = process.cpuUsage().system;
  const start = process.hrtime.bigint();
  const checkBurst = await burst(BURST_MESSAGES);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  checkBurst();
  const cpuAfter = [processCpuUs(pids.bridge), ownCpuUs(), processCpuUs(pids.server), machineBusyUs()];
  const syscallsAfter = processSyscalls(pids.bridge);
  const ownSyscallsAfter = processSyscalls(process.pid);
  const ownSystemAfter = process.cpuUsage().system;
  const perMessage = (i: number) => ((cpuAfter[i] ?? Number.NaN) - (cpuBefore[i] ?? Number.NaN)) / BURST_MESSAGES;
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    rate: BURST_MESSAGES / seconds,
    bridgeUs: perMessage(0),
    benchUs: perMessage(1),
    serverUs: perMessage(2),
    otherUs: perMessage(3) - perMessage(0) - perMessage(1) - perMessage(2),
    bridgeReads: (syscallsAfter.reads - syscallsBefore.reads) / BURST_MESSAGES,
    bridgeWrites: (syscallsAfter.writes - syscallsBefore.writes) / BURST_MESSAGES,
    benchReads: (ownSyscallsAfter.reads - ownSyscallsBefore.reads) / BURST_MESSAGES,
    benchWrites: (ownSyscallsAfter.writes - ownSyscallsBefore.writes) / BURST_MESSAGES,
    benchSystemUs: (ownSystemAfter - ownSystemBefore) / BURST_MESSAGES,
  };
}

function median(results: Result[]): Result {
  const pick = (key: keyof Result) => {
    const values = results.map((r) => r[key]).sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)] ?? Number.NaN;
  };
  return {
    p50: pick("p50"),
    p99: pick("p99"),
    rate: pick("rate"),
    bridgeUs: pick("bridgeUs"),
    benchUs: pick("benchUs"),
    serverUs: pick("serverUs"),
    otherUs: pick("otherUs"),
    bridgeReads: pick("bridgeReads"),
    bridgeWrites: pick("bridgeWrites"),
    benchReads: pick("benchReads"),
    benchWrites: pick("benchWrites"),
    benchSystemUs: pick("benchSystemUs"),
  };
}

/** Reads the api account's /api/stream and feeds each message's text to `arrivals`. */
function openStream(url: string, arrivals: Arrivals): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      let pending = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        pending += chunk;
        let newline = pending.indexOf("\n");
        while (newline >= 0) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          newline = pending.indexOf("\n");
          const text = (JSON.parse(line) as { text: string }).text;
          const seq = sequenceAtEnd(text);
          if (text === "") resolve(() => req.destroy());
          else if (seq >= 0) arrivals.arrived(seq);
        }
      });
    });
    req.on("error", reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  const teardown = { after: (fn: () => Promise<void> | void) => cleanups.push(fn) };
  const dir = mkdtempSync(join(tmpdir(), "bench-bridge-irc-"));
  try {
    const server = await startNgircd(teardown);
    if (flags.nice !== undefined) {
      // Every process of both paths at the same priority: the floor's (this process and ngIRCd) as well as the
      // bridges', so that other work on the machine slows neither side more than the other.
      setPriority(Number(flags.nice));
      setPriority(server.pid, Number(flags.nice));
    }
    // Each bridge in its own channel (with its own api account and state file): neither relays the other's burst.
    const bridges = [{ label: "", bin: BIN, channel: CHANNEL, nick: "bridge" }];
    if (flags.before !== undefined) {
      const bin = serviceBin(flags.before, "bridge");
      bridges.push({ label: " (before)", bin, channel: `${CHANNEL}-before`, nick: "bridgebefore" });
    }
    const channels = [...bridges.map((b) => b.channel), FLOOR_CHANNEL];
    // The floor's two clients on IRC (the reader also reads what the bridges write), and the IRC -> api paths'
    // sender, which reads none of the bridges' lines: raw connections (raw-irc-client.ts), cheap for the load
    // generator on every path alike.
    const sender = await RawIrcClient.open("127.0.0.1", server.port, "sender", [FLOOR_CHANNEL]);
    cleanups.push(() => sender.close());
    const reader = await RawIrcClient.open("127.0.0.1", server.port, "reader", channels);
    cleanups.push(() => reader.close());
    const toBridges = await RawIrcClient.open(
      "127.0.0.1",
      server.port,
      "ircsender",
      bridges.map((b) => b.channel),
    );
    cleanups.push(() => toBridges.close());
    const floor = new Arrivals();
    reader.watch(FLOOR_CHANNEL, "sender", (seq) => floor.arrived(seq));
    const pids = new Map<string, number>();
    const allPaths: Path[] = [];
    for (const [n, { label, bin, channel, nick }] of bridges.entries()) {
      const apiPort = await freePort();
      const config = join(dir, `bench${n}.toml`);
      writeFileSync(
        config,
        `[irc.bench]\nServer = "127.0.0.1:${server.port}"\nNick = "${nick}"\nMessageDelay = 0\nMessageQueue = 1000000\n` +
          `RemoteNickFormat = "<{NICK}> "\n` +
          // IdleTimeout: the poster's keep-alive connections wait through the other paths' bursts; closed while
          // idle, a post written as the close arrived was reset (ECONNRESET) and ended the run.
          `[api.bench]\nBindAddress = "127.0.0.1:${apiPort}"\nBuffer = 10\nIdleTimeout = 3600\n` +
          `[[gateway]]\nname = "bench"\nenable = true\n` +
          `[[gateway.inout]]\naccount = "irc.bench"\nchannel = "${channel}"\n` +
          `[[gateway.inout]]\naccount = "api.bench"\nchannel = "api"\n`,
      );
      const nodeArgs = [
        ...(process.env.BENCH_BRIDGE_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
        bin,
        "-conf",
        config,
      ];
      const bridge = await startProcess(
        {
          command: flags.nice === undefined ? process.execPath : "nice",
          args: flags.nice === undefined ? nodeArgs : ["-n", flags.nice, process.execPath, ...nodeArgs],
          ready: { line: "bridge started" },
          name: `bridge${label}`,
        },
        teardown,
      );
      const toApi = new Arrivals();
      const closeStream = await openStream(`http://127.0.0.1:${apiPort}/api/stream`, toApi);
      cleanups.push(closeStream);
      const toIrc = new Arrivals();
      reader.watch(channel, nick, (seq) => toIrc.arrived(seq));
      const poster = await PipelinedPoster.open("127.0.0.1", apiPort, POST_CONNECTIONS, "/api/message", {
        before: `{"text":"m`,
        after: `","username":"bench","gateway":"bench"}`,
      });
      cleanups.push(() => poster.close());
      pids.set(`IRC -> api${label}`, bridge.pid).set(`api -> IRC${label}`, bridge.pid);
      allPaths.push(
        {
          name: `IRC -> api${label}`,
          arrivals: toApi,
          inFlight: 1,
          send: (seq) => toBridges.say(channel, `m${seq}`),
        },
        {
          name: `api -> IRC${label}`,
          arrivals: toIrc,
          inFlight: POSTS_IN_FLIGHT,
          send: (seq) => poster.burst(seq, 1, 1),
          burst: (first, count) => poster.burst(first, count, POSTS_IN_FLIGHT),
        },
      );
    }
    allPaths.push({
      name: "floor IRC -> IRC",
      arrivals: floor,
      inFlight: 1,
      send: (seq) => sender.say(FLOOR_CHANNEL, `m${seq}`),
    });
    // Rounds alternate between the paths so a burst of load from elsewhere hits all of them; figures are medians.
    const f = (n: number, digits = 3) => n.toFixed(digits);
    const cpu = (r: Result) =>
      // The bridge's to a tenth: /proc counts 10 ms ticks, 2 µs per message in a burst of 5,000.
      `CPU µs/msg: bridge ${f(r.bridgeUs, 1)}, load generator ${f(r.benchUs, 0)}, ngircd ${f(r.serverUs, 0)}, ` +
      `other ${f(r.otherUs, 0)}` +
      (Number.isNaN(r.bridgeWrites)
        ? ""
        : `; syscalls/msg: bridge ${f(r.bridgeReads, 2)} reads, ${f(r.bridgeWrites, 2)} writes, load generator ` +
          `${f(r.benchReads, 2)} reads, ${f(r.benchWrites, 2)} writes (kernel ${f(r.benchSystemUs, 0)} µs/msg)`);
    // BENCH_PATHS=api measures only the paths whose name holds "api" (and the floor, always): for profiling one.
    const only = process.env.BENCH_PATHS?.split(",").filter(Boolean);
    const paths = allPaths.filter(
      (p) => only === undefined || p.name.startsWith("floor") || only.some((part) => p.name.includes(part)),
    );
    const runs = new Map<string, Result[]>(paths.map((p) => [p.name, []]));
    const bridgePaths = paths.filter((p) => !p.name.startsWith("floor"));
    const floorPath = paths.filter((p) => p.name.startsWith("floor"));
    for (let round = 0; round < ROUNDS; round++) {
      // Every other round in the opposite order: the work a burst leaves behind (garbage to collect, lines still on
      // their way) falls on each bridge's paths in turn.
      const ordered = round % 2 === 0 ? bridgePaths : [...bridgePaths].reverse();
      for (const path of [...ordered, ...floorPath]) {
        const r = await measure(path, {
          bridge: pids.get(path.name) ?? pids.get("api -> IRC") ?? 0,
          server: server.pid,
        });
        runs.get(path.name)?.push(r);
        console.log(`round ${round + 1} ${path.name}: ${f(r.rate, 0)} msg/s, ${cpu(r)}`);
      }
    }
    const results = new Map([...runs].map(([name, list]) => [name, median(list)]));
    const base = results.get("floor IRC -> IRC") as Result;
    for (const [name, r] of results) {
      const ratio = name.startsWith("floor")
        ? ""
        : ` | vs floor: p50 ${f(r.p50 / base.p50, 2)}x, p99 ${f(r.p99 / base.p99, 2)}x, throughput ${f((100 * r.rate) / base.rate, 0)}%`;
      console.log(`${name}: p50 ${f(r.p50)} ms, p99 ${f(r.p99)} ms, ${f(r.rate, 0)} msg/s${ratio}`);
      console.log(`  ${cpu(r)}`);
    }
    const load = loadavg().map((n) => f(n, 2));
    console.log(
      `(medians of ${ROUNDS} alternating rounds; ${LATENCY_MESSAGES} sequential messages for latency, bursts of ${BURST_MESSAGES}; MessageDelay 0; load average at the end ${load.join(" ")}; ${cpus().length} CPUs)`,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
