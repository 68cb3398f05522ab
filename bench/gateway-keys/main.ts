// The cost of keys: authentication plus per-key limits per request, with the embedded store and with Redis, against
// the key-less path, all run side by side on the same machine; then two Redis-backed replicas behind a round-robin
// balancer against one replica behind the same balancer. Ratios are printed; nothing is asserted.
// `npm run bench gateway-keys [-- --seconds 5 --connections 32]`

import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, type ManagedProcess, startProcess, startRedis } from "@switchboard/testkit";
import type { LoadOptions, LoadResult } from "../gateway/load.ts";
import { machineLine } from "../gateway/table.ts";
import { BENCH_MODEL } from "../gateway/upstream.ts";
import { serviceBin } from "../service-bin.ts";
import { startBalancer } from "./balancer.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const BIN = serviceBin(root, "gateway");
const flag = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
};
const seconds = flag("seconds", 5);
const connections = flag("connections", 32);
const MASTER = "bench-master-key-0123456789abcdef";
const body = JSON.stringify({ model: BENCH_MODEL, messages: [{ role: "user", content: "hello" }] });
const cleanups: (() => unknown)[] = [];
const teardown = { after: (fn: () => unknown) => cleanups.push(fn) };
const dir = mkdtempSync(join(tmpdir(), "bench-gateway-keys-"));

/** The load generator in its own process (bench/gateway/load.ts), so it does not share the balancer's thread. */
function load(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      "--import",
      "tsx",
      join(root, "bench/gateway/load.ts"),
      JSON.stringify(options),
    ]);
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load exited ${code}`)),
    );
  });
}

async function gateway(name: string, extra: string): Promise<ManagedProcess> {
  const file = join(dir, `${name}.toml`);
  writeFileSync(
    file,
    `[server]\nport = 0\n[discovery]\nenabled = false\n[[backends]]\nname = "up"\nurl = "${upstreamUrl}"\ntype = "generic"\n${extra}`,
  );
  return startProcess(
    {
      command: process.execPath,
      args: [BIN, "serve", "-c", file],
      env: { ...process.env, MASTER },
      ready: { line: "listening on" },
      name,
      timeoutMs: 20_000,
    },
    teardown,
  );
}

async function makeKey(url: string): Promise<string> {
  const response = await fetch(`${url}/v1/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${MASTER}`, "content-type": "application/json" },
    // Every limit on, none reached: the full admission path runs on each request.
    body: JSON.stringify({ name: "bench", rpm: 1e9, tpm: 1e9, max_concurrent: 100_000, budget_usd: 1e9 }),
  });
  return ((await response.json()) as { key: string }).key;
}

const upstreamPort = await freePort();
const upstream = await startProcess(
  {
    command: process.execPath,
    args: ["--import", "tsx", join(root, "bench/gateway/upstream.ts"), String(upstreamPort)],
    ready: { line: "upstream listening" },
    name: "upstream",
  },
  teardown,
);
const upstreamUrl = `http://127.0.0.1:${upstreamPort}`;
void upstream;
const redis = await startRedis(teardown, { appendfsync: "everysec" });
const auth = `[auth]\nmaster_key_env = "MASTER"\n`;
const keyless = await gateway("keyless", "");
const embedded = await gateway("embedded", `${auth}[state]\npath = "${join(dir, "state.json")}"\n`);
const redisState = `${auth}[state]\nbackend = "redis"\nurl = "${redis.url}"\n`;
const replicaA = await gateway("redis-a", redisState);
const replicaB = await gateway("redis-b", redisState);
const key = await makeKey(replicaA.listeningUrl ?? "");
const embeddedKey = await makeKey(embedded.listeningUrl ?? "");

const run = (url: string, secret: string | undefined, conns: number) =>
  load({
    url: `${url}/v1/chat/completions`,
    body,
    headers: secret ? { authorization: `Bearer ${secret}` } : {},
    connections: conns,
    durationMs: seconds * 1000,
    warmupMs: 1000,
    expect: "chat.completion",
  });

const f = (value: number) => value.toFixed(3);
console.log(machineLine());
console.log(`\nlatency, 1 connection, ${seconds} s each (p50 / p99 ms; added p50 against the key-less path):`);
const cases: [string, string, string | undefined][] = [
  ["key-less", keyless.listeningUrl ?? "", undefined],
  ["key + limits, embedded", embedded.listeningUrl ?? "", embeddedKey],
  ["key + limits, Redis", replicaA.listeningUrl ?? "", key],
];
let baseline = 0;
for (const [name, url, secret] of cases) {
  const result = await run(url, secret, 1);
  if (baseline === 0) baseline = result.latencyMs.p50;
  const bad = result.errors + result.non2xx + result.invalid;
  console.log(
    `  ${name.padEnd(26)} p50 ${f(result.latencyMs.p50)}  p99 ${f(result.latencyMs.p99)}  added p50 ${f(result.latencyMs.p50 - baseline)} ms  ${Math.round(result.requestsPerSecond)} req/s${bad ? `  (${bad} failed: ${result.firstProblem})` : ""}`,
  );
}

console.log(
  `\nthroughput behind a round-robin balancer, ${connections} connections, ${seconds} s each (Redis, key + limits):`,
);
const one = await startBalancer([Number(new URL(replicaA.listeningUrl ?? "").port)]);
const two = await startBalancer([
  Number(new URL(replicaA.listeningUrl ?? "").port),
  Number(new URL(replicaB.listeningUrl ?? "").port),
]);
const single = await run(`http://127.0.0.1:${one.port}`, key, connections);
const pair = await run(`http://127.0.0.1:${two.port}`, key, connections);
console.log(`  one replica   ${Math.round(single.requestsPerSecond)} req/s  p50 ${f(single.latencyMs.p50)} ms`);
console.log(`  two replicas  ${Math.round(pair.requestsPerSecond)} req/s  p50 ${f(pair.latencyMs.p50)} ms`);
console.log(`  ratio         ${(pair.requestsPerSecond / single.requestsPerSecond).toFixed(2)}x`);
one.server.close();
two.server.close();
for (const cleanup of cleanups.reverse()) await cleanup();
