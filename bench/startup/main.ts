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
//   npm run bench startup [-- --runs N] [--installed]        (default 21 runs per target)
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePort, startFakeAnthropic, startFakeGoogle, startFakeOllama, startFakeOpenAI } from "@switchboard/testkit";
import { bridgeConfig, GATEWAY_ENV, gatewayConfig } from "./configs.ts";
import { type Bins, installedBins, sqliteLoadsHere, workspaceBins } from "./installed.ts";
import { printTable } from "./table.ts";
import { type ListeningTarget, type StartTimes, timeToAnswer } from "./time-to-answer.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const { values } = parseArgs({
  options: { runs: { type: "string", default: "21" }, installed: { type: "boolean", default: false } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);

const installed = values.installed || !sqliteLoadsHere(root);
if (installed && !values.installed) {
  console.log(`the workspace's better-sqlite3 does not load on node ${process.version}: using packed installs`);
}
const bins: Bins = installed ? await installedBins(root) : workspaceBins(root);

interface ExitTarget {
  name: string;
  args: string[];
}

const exitTargets: ExitTarget[] = [
  { name: "node -e ''", args: ["-e", ""] },
  { name: "switchboard-gateway --version", args: [bins.gateway, "--version"] },
  { name: "switchboard-bridge -version", args: [bins.bridge, "-version"] },
  { name: "gateway through tsx", args: ["--import", "tsx", join(root, "packages/gateway/src/cli.ts"), "--version"] },
  { name: "bridge through tsx", args: ["--import", "tsx", join(root, "packages/bridge/src/cli.ts"), "-version"] },
];

function timeToExit(target: ExitTarget): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, target.args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
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
const dir = mkdtempSync(join(tmpdir(), "bench-startup-"));
const [bridgePort, closedPort, gatewayPort, nodePort] = [
  await freePort(),
  await freePort(),
  await freePort(),
  await freePort(),
];
writeFileSync(join(dir, "bridge.toml"), bridgeConfig(bridgePort, closedPort));
const urls = {
  ollama: upstreams.ollama.url,
  openai: upstreams.openai.url,
  anthropic: upstreams.anthropic.url,
  google: upstreams.google.url,
};
writeFileSync(join(dir, "gateway.toml"), gatewayConfig(gatewayPort, urls, dir));

const server = `require("node:http").createServer((q, s) => s.end("ok")).listen(${nodePort}, "127.0.0.1")`;
const listeningTargets: ListeningTarget[] = [
  { name: "node: http server listening", args: ["-e", server], url: `http://127.0.0.1:${nodePort}/health` },
  {
    name: "switchboard-gateway serve (9 backends, every section)",
    args: [bins.gateway, "serve", "--config", join(dir, "gateway.toml")],
    url: `http://127.0.0.1:${gatewayPort}/health`,
    env: { ...process.env, ...GATEWAY_ENV },
  },
  {
    name: "switchboard-bridge (13 account types)",
    args: [bins.bridge, "-conf", join(dir, "bridge.toml")],
    url: `http://127.0.0.1:${bridgePort}/api/health`,
  },
];

try {
  const load = loadavg()[0]!.toFixed(1);
  // One untimed run each warms the file system cache.
  for (const target of exitTargets) timeToExit(target);
  for (const target of listeningTargets) await timeToAnswer(target);

  const exitTimes = exitTargets.map(() => [] as number[]);
  const listenTimes = listeningTargets.map(() => [] as StartTimes[]);
  for (let run = 0; run < runs; run++) {
    for (const [index, target] of exitTargets.entries()) exitTimes[index]!.push(timeToExit(target));
    for (const [index, target] of listeningTargets.entries()) listenTimes[index]!.push(await timeToAnswer(target));
  }

  const where = installed ? "packed installs" : "dist/ in the workspace";
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
} finally {
  await Promise.all(Object.values(upstreams).map((upstream) => upstream.close()));
  rmSync(dir, { recursive: true, force: true });
  bins.remove();
}
