// bench/bridge: POST -> stream delivery latency (p50, p99) and delivered messages per second with 10 stream
// clients, for the bridge (real bin, two api accounts on one gateway) and, side by side, a minimal node:http
// POST -> NDJSON fan-out server (the floor). Prints one summary line plus the ratios, then the cost of durability:
// the same bridge with its state file (the default) against one started with StateFile = "" (nothing kept).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, type ManagedProcess, startProcess } from "@switchboard/testkit";
import { Pool } from "undici";
import { REPOSITORY_ROOT, serviceBin } from "../service-bin.ts";

const STREAM_CLIENTS = 10;
const WARMUP = 1_000;
const LATENCY_MESSAGES = 2_000;
const THROUGHPUT_MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const IN_FLIGHT = 64;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const here = fileURLToPath(new URL(".", import.meta.url));
/** BENCH_BRIDGE_BIN runs another build of the bridge (a copy of an older commit, for a before/after). */
const BIN = process.env.BENCH_BRIDGE_BIN ?? serviceBin(REPOSITORY_ROOT, "bridge");

interface Target {
  name: string;
  postUrl: string;
  streamUrl: string;
  process: ManagedProcess;
}

interface Result {
  p50: number;
  p99: number;
  rate: number;
}

/** Stream clients that record, per message sequence number, when each client received it. */
class Receivers {
  readonly #sentAt = new Map<number, bigint>();
  readonly latenciesNs: number[] = [];
  /** Whether lines are parsed for latency (the throughput phase only counts them). */
  timing = false;
  #delivered = 0;
  #waiters: { count: number; resolve: () => void }[] = [];
  readonly #requests: ReturnType<typeof request>[] = [];

  async open(url: string): Promise<void> {
    await Promise.all(
      Array.from(
        { length: STREAM_CLIENTS },
        () =>
          new Promise<void>((resolve, reject) => {
            const req = request(url, { agent: false }, (res) => {
              let pending = "";
              let greeted = false;
              res.setEncoding("utf8");
              res.on("data", (chunk: string) => {
                const now = process.hrtime.bigint();
                pending += chunk;
                let start = 0;
                let newline = pending.indexOf("\n");
                while (newline >= 0) {
                  if (!greeted) {
                    greeted = true;
                    resolve();
                  } else {
                    if (this.timing) this.#record(pending, start, now);
                    this.#delivered++;
                  }
                  start = newline + 1;
                  newline = pending.indexOf("\n", start);
                }
                pending = pending.slice(start);
                this.#wake();
              });
            });
            req.on("error", reject);
            req.end();
            this.#requests.push(req);
          }),
      ),
    );
  }

  markSent(seq: number): void {
    if (this.timing) this.#sentAt.set(seq, process.hrtime.bigint());
  }

  /** Latency of the line starting at `start` (its text is m<seq>; the field order puts text first). */
  #record(buffer: string, start: number, now: bigint): void {
    if (!buffer.startsWith('{"text":"m', start)) return;
    const seq = Number.parseInt(buffer.slice(start + 10, buffer.indexOf('"', start + 10)), 10);
    const sent = this.#sentAt.get(seq);
    if (sent !== undefined) this.latenciesNs.push(Number(now - sent));
  }

  #wake(): void {
    if (this.#waiters.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => {
      if (this.#delivered < w.count) return true;
      w.resolve();
      return false;
    });
  }

  get delivered(): number {
    return this.#delivered;
  }

  until(count: number): Promise<void> {
    if (this.#delivered >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`only ${this.#delivered}/${count} deliveries after 60 s`)),
        60_000,
      );
      this.#waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  close(): void {
    for (const req of this.#requests) req.destroy();
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function median(results: Result[]): Result {
  const pick = (key: keyof Result) => {
    const values = results.map((r) => r[key]).sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)] ?? Number.NaN;
  };
  return { p50: pick("p50"), p99: pick("p99"), rate: pick("rate") };
}

async function measure(target: Target): Promise<Result> {
  const receivers = new Receivers();
  await receivers.open(target.streamUrl);
  const url = new URL(target.postUrl);
  const pool = new Pool(url.origin, { connections: 8, pipelining: 1 });
  let seq = 0;
  const postOne = async () => {
    const n = seq++;
    receivers.markSent(n);
    const { statusCode, body } = await pool.request({
      path: url.pathname,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"text":"m${n}","username":"bench","gateway":"bench"}`,
    });
    await body.text();
    if (statusCode !== 200) throw new Error(`${target.name}: POST answered ${statusCode}`);
  };
  const run = async (count: number, inFlight: number) => {
    const end = seq + count;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (seq < end) await postOne();
      }),
    );
  };

  await run(WARMUP, IN_FLIGHT);
  await receivers.until(seq * STREAM_CLIENTS);

  // Latency: one message at a time, each fully delivered to all clients before the next.
  receivers.timing = true;
  for (let i = 0; i < LATENCY_MESSAGES; i++) {
    await postOne();
    await receivers.until(seq * STREAM_CLIENTS);
  }
  receivers.timing = false;
  const sorted = receivers.latenciesNs.slice().sort((a, b) => a - b);

  // Throughput: IN_FLIGHT posts in flight over keep-alive connections; done when all clients got everything.
  const start = process.hrtime.bigint();
  await run(THROUGHPUT_MESSAGES, IN_FLIGHT);
  await receivers.until(seq * STREAM_CLIENTS);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;

  receivers.close();
  await pool.close();
  return { p50: percentile(sorted, 50) / 1e6, p99: percentile(sorted, 99) / 1e6, rate: THROUGHPUT_MESSAGES / seconds };
}

async function main(): Promise<void> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const teardown = { after: (fn: () => Promise<void> | void) => cleanups.push(async () => fn()) };
  const dir = mkdtempSync(join(tmpdir(), "bench-bridge-"));
  try {
    const [inPort, outPort, basePort, bareInPort, bareOutPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const startBridge = async (name: string, general: string, ports: [number, number]) => {
      const config = join(dir, `${name}.toml`);
      writeFileSync(
        config,
        `[general]\n${general}\n` +
          `[api.in]\nBindAddress = "127.0.0.1:${ports[0]}"\nBuffer = 1000\n` +
          `[api.out]\nBindAddress = "127.0.0.1:${ports[1]}"\nBuffer = 1000\n` +
          `[[gateway]]\nname = "bench"\nenable = true\n` +
          `[[gateway.inout]]\naccount = "api.in"\nchannel = "api"\n[[gateway.inout]]\naccount = "api.out"\nchannel = "api"\n`,
      );
      return startProcess(
        {
          command: process.execPath,
          // BENCH_BRIDGE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the bridge under this load.
          args: [...(process.env.BENCH_BRIDGE_NODE_ARGS?.split(" ").filter(Boolean) ?? []), BIN, "-conf", config],
          ready: { line: "bridge started" },
          name,
        },
        teardown,
      );
    };
    // The default: a state file beside the config (every message the api.out buffer holds is written to it).
    const bridge = await startBridge("bridge", "", [inPort, outPort]);
    const bare = await startBridge("bridge-without-state", 'StateFile = ""', [bareInPort, bareOutPort]);
    const baseline = await startProcess(
      {
        command: process.execPath,
        args: ["--import", "tsx", join(here, "baseline-server.ts"), String(basePort)],
        ready: { line: "baseline listening" },
        name: "baseline",
      },
      teardown,
    );
    const bridgeTarget: Target = {
      name: "bridge",
      postUrl: `http://127.0.0.1:${inPort}/api/message`,
      streamUrl: `http://127.0.0.1:${outPort}/api/stream`,
      process: bridge,
    };
    const baseTarget: Target = {
      name: "baseline",
      postUrl: `http://127.0.0.1:${basePort}/api/message`,
      streamUrl: `http://127.0.0.1:${basePort}/api/stream`,
      process: baseline,
    };
    const bareTarget: Target = {
      name: "bridge without state file",
      postUrl: `http://127.0.0.1:${bareInPort}/api/message`,
      streamUrl: `http://127.0.0.1:${bareOutPort}/api/stream`,
      process: bare,
    };
    // Rounds alternate between the three so that a burst of load from elsewhere hits all; each figure is the median.
    const bridgeRuns: Result[] = [];
    const baseRuns: Result[] = [];
    const bareRuns: Result[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bridgeRuns.push(await measure(bridgeTarget));
      baseRuns.push(await measure(baseTarget));
      bareRuns.push(await measure(bareTarget));
    }
    const bridgeResult = median(bridgeRuns);
    const baseResult = median(baseRuns);
    const bareResult = median(bareRuns);
    const f = (n: number, digits = 3) => n.toFixed(digits);
    console.log(
      `bridge: p50 ${f(bridgeResult.p50)} ms, p99 ${f(bridgeResult.p99)} ms, ${f(bridgeResult.rate, 0)} msg/s to ${STREAM_CLIENTS} stream clients` +
        ` | baseline node:http: p50 ${f(baseResult.p50)} ms, p99 ${f(baseResult.p99)} ms, ${f(baseResult.rate, 0)} msg/s` +
        ` | ratio bridge/baseline: p50 ${f(bridgeResult.p50 / baseResult.p50, 2)}x, p99 ${f(bridgeResult.p99 / baseResult.p99, 2)}x,` +
        ` throughput ${f((100 * bridgeResult.rate) / baseResult.rate, 0)}%` +
        ` (medians of ${ROUNDS} alternating rounds; ${THROUGHPUT_MESSAGES} posts, ${IN_FLIGHT} in flight;` +
        ` ${LATENCY_MESSAGES} sequential for latency)`,
    );
    console.log(
      `durability: with the state file p50 ${f(bridgeResult.p50)} ms, ${f(bridgeResult.rate, 0)} msg/s` +
        ` | without (StateFile = "") p50 ${f(bareResult.p50)} ms, ${f(bareResult.rate, 0)} msg/s` +
        ` | throughput with/without ${f(bridgeResult.rate / bareResult.rate, 2)}x (goal >= 0.8x),` +
        ` p50 ${f(bridgeResult.p50 / bareResult.p50, 2)}x`,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
