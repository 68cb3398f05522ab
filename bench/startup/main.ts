// bench/startup: how long each service's bin takes to start, against bare node run side by side.
// - To exit: each bin's version flag against bare `node -e ''`; the rows "through tsx" run the same CLIs from their
//   TypeScript sources, as the bins once did, for comparison.
// - To listening: each bin on a config that uses every protocol (configs.ts), from spawn until its health URL
//   answers (and until its port first accepts a connection), against bare node creating an http server and
//   listening, asked the same way.
// Targets are interleaved run by run so a busy machine slows them alike; the tables show medians and each one's ratio
// to its bare-node row. The bins run their bundles in dist/ (`npm run bench` builds them when stale), or with
// --installed (automatic when the workspace's better-sqlite3 was built for another Node) from packed installs
// (installed.ts).
// --before DIR adds the same rows for another checkout (a built worktree of an earlier commit: /tmp/mktree.sh), in
// the same runs. On a Node with a compile cache (22.1+) each bin row is also run with an empty cache folder of its
// own ("cold compile cache": a first start after an install or upgrade); the other rows use the user's cache, which
// the untimed first run fills.
// Beside the times, the CPU time each process had used when it first answered (less disturbed by other work).
//   npm run bench startup [-- --runs N] [--installed] [--before DIR] [--nice=-10]     (default 21 runs per target)
// On another Node: that node --import tsx bench/startup/main.ts [flags]
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import module from "node:module";
import { loadavg, setPriority, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePort, startFakeAnthropic, startFakeGoogle, startFakeOllama, startFakeOpenAI } from "@switchboard/testkit";
import { type Bins, installedBins, sqliteLoadsHere, workspaceBins } from "./installed.ts";
import { printTable } from "./table.ts";
import { exitTargets as binExitTargets, listeningTargets as binListeningTargets, type ExitTarget } from "./targets.ts";
import { type ListeningTarget, type StartTimes, timeToAnswer } from "./time-to-answer.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "21" },
    installed: { type: "boolean", default: false },
    before: { type: "string" },
    nice: { type: "string" },
  },
});
// Inherited by every process the bench starts: on a shared machine, other work then disturbs the timings less.
if (values.nice !== undefined) setPriority(Number(values.nice));
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);

const installed = values.installed || !sqliteLoadsHere(root);
if (installed && !values.installed) {
  console.log(`the workspace's better-sqlite3 does not load on node ${process.version}: using packed installs`);
}
const beforeRoot = values.before === undefined ? undefined : resolve(values.before);
if (beforeRoot !== undefined && !installed && !existsSync(join(beforeRoot, "packages/gateway/dist/.build-stamp"))) {
  throw new Error(`--before ${beforeRoot}: no built bins there (make it with /tmp/mktree.sh, which builds)`);
}
const copies: { bins: Bins; label: string }[] = [];
try {
  copies.push({ bins: installed ? await installedBins(root) : workspaceBins(root), label: "" });
  if (beforeRoot !== undefined) {
    copies.push({ bins: installed ? await installedBins(beforeRoot) : workspaceBins(beforeRoot), label: ", before" });
  }
} catch (error) {
  for (const copy of copies) copy.bins.remove();
  throw error;
}
const dir = mkdtempSync(join(tmpdir(), "bench-startup-"));
/** Node 22.1+: the bins turn on Node's compile cache (@switchboard/common/compile-cache). */
const hasCompileCache = "enableCompileCache" in module;
const COLD = ", cold compile cache";
/** A row run with an empty compile cache folder of its own each time. */
type MaybeCold<T> = T & { coldCompileCache?: boolean };

const exitTargets: MaybeCold<ExitTarget>[] = [
  { name: "node -e ''", args: ["-e", ""] },
  ...copies.flatMap(({ bins, label }) => binExitTargets(bins, label)),
  { name: "gateway through tsx", args: ["--import", "tsx", join(root, "packages/gateway/src/cli.ts"), "--version"] },
  { name: "bridge through tsx", args: ["--import", "tsx", join(root, "packages/bridge/src/cli.ts"), "-version"] },
];
if (hasCompileCache) {
  const cold = copies.flatMap(({ bins, label }) => binExitTargets(bins, label + COLD));
  exitTargets.push(...cold.map((target) => ({ ...target, coldCompileCache: true })));
}

/** The compile cache folder of each warm target, made by its untimed first run. */
const warmCaches = new WeakMap<object, string>();

/**
 * The compile caches a run starts with (the bins take NODE_COMPILE_CACHE, as Node does): an empty folder for each run
 * of a cold target; for a warm one a folder of its own, which its untimed first run fills. Not the user's folder:
 * its entries were written by whichever process ran the bins first, and a test process that ran more code before the
 * write leaves a larger entry, which every start then deserialises (20–30 ms more, measured).
 */
function envFor(target: MaybeCold<{ env?: NodeJS.ProcessEnv }>): NodeJS.ProcessEnv {
  const env = target.env ?? process.env;
  if (target.coldCompileCache) return { ...env, NODE_COMPILE_CACHE: mkdtempSync(join(dir, "compile-cache-")) };
  let folder = warmCaches.get(target);
  if (folder === undefined) {
    folder = mkdtempSync(join(dir, "warm-cache-"));
    warmCaches.set(target, folder);
  }
  return { ...env, NODE_COMPILE_CACHE: folder };
}

function timeToExit(target: MaybeCold<ExitTarget>): number {
  const env = envFor(target);
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, target.args, { cwd: root, env, stdio: ["ignore", "ignore", "pipe"] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${target.name} failed (exit ${result.status}): ${result.stderr}`);
  return ms;
}

// The gateway's backends: the testkit's simulators, up before any timing (its start probes each backend once).
const upstreams = {
  ollama: await startFakeOllama(),
  openai: await startFakeOpenAI(),
  anthropic: await startFakeAnthropic(),
  google: await startFakeGoogle(),
};
const [bridgePort, closedPort, gatewayPort, nodePort] = [
  await freePort(),
  await freePort(),
  await freePort(),
  await freePort(),
];
const urls = {
  ollama: upstreams.ollama.url,
  openai: upstreams.openai.url,
  anthropic: upstreams.anthropic.url,
  google: upstreams.google.url,
};
const ports = { bridge: bridgePort, closed: closedPort, gateway: gatewayPort };

const server = `require("node:http").createServer((q, s) => s.end("ok")).listen(${nodePort}, "127.0.0.1")`;
const listeningTargets: MaybeCold<ListeningTarget>[] = [
  { name: "node: http server listening", args: ["-e", server], url: `http://127.0.0.1:${nodePort}/health` },
  ...copies.flatMap(({ bins, label }) => binListeningTargets(bins, label, { parentDir: dir, ports, upstreams: urls })),
];
if (hasCompileCache) {
  for (const { bins, label } of copies) {
    const cold = binListeningTargets(bins, label + COLD, { parentDir: dir, ports, upstreams: urls });
    listeningTargets.push(...cold.map((target) => ({ ...target, coldCompileCache: true })));
  }
}

try {
  const load = loadavg()[0]!.toFixed(1);
  // One untimed run each warms the file system cache.
  for (const target of exitTargets) timeToExit(target);
  for (const target of listeningTargets) await timeToAnswer({ ...target, env: envFor(target) });

  const exitTimes = exitTargets.map(() => [] as number[]);
  const listenTimes = listeningTargets.map(() => [] as StartTimes[]);
  for (let run = 0; run < runs; run++) {
    for (const [index, target] of exitTargets.entries()) exitTimes[index]!.push(timeToExit(target));
    for (const [index, target] of listeningTargets.entries()) {
      listenTimes[index]!.push(await timeToAnswer({ ...target, env: envFor(target) }));
    }
  }

  const where =
    (installed ? "packed installs" : "dist/ in the workspace") +
    (beforeRoot ? `; "before" rows from ${beforeRoot}` : "");
  console.log(
    `node ${process.version}, ${runs} interleaved runs, bins from ${where}, load average ${load} → ${loadavg()[0]!.toFixed(1)}\n`,
  );
  console.log("start-up to exit:\n");
  printTable(exitTargets.map((target, index) => ({ name: target.name, times: exitTimes[index]! })));
  const listening = (pick: (times: StartTimes) => number) =>
    listeningTargets.map((target, index) => ({ name: target.name, times: listenTimes[index]!.map(pick) }));
  console.log("\nstart-up to listening: spawn → its health URL answers\n");
  printTable(listening((times) => times.answeredMs));
  console.log("\nstart-up to listening: spawn → its port accepts a connection\n");
  printTable(listening((times) => times.acceptedMs));
  console.log("\nCPU time (all threads) up to the first answer\n");
  printTable(listening((times) => times.cpuMs));
} finally {
  await Promise.all(Object.values(upstreams).map((upstream) => upstream.close()));
  rmSync(dir, { recursive: true, force: true });
  for (const copy of copies) copy.bins.remove();
}
