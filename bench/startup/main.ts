// bench/startup: how long each service's bin takes to print its version, against bare `node -e ''` (the floor) run
// side by side. Targets are interleaved run by run so a busy machine slows them alike; the table shows medians of
// wall time and each one's ratio to bare node. The bins run dist/ (`npm run bench` builds it when stale); the rows
// "through tsx" run the same CLIs from their TypeScript sources, as the bins once did, for comparison.
//   npm run bench startup [-- --runs N]        (default 21 runs per target)
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = fileURLToPath(new URL("../..", import.meta.url));
const { values } = parseArgs({ options: { runs: { type: "string", default: "21" } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);

interface Target {
  name: string;
  args: string[];
}

const targets: Target[] = [
  { name: "node -e ''", args: ["-e", ""] },
  {
    name: "switchboard-gateway --version",
    args: [join(root, "packages/gateway/bin/switchboard-gateway.mjs"), "--version"],
  },
  { name: "switchboard-bridge -version", args: [join(root, "packages/bridge/bin/switchboard-bridge.mjs"), "-version"] },
  {
    name: "gateway through tsx",
    args: ["--import", "tsx", join(root, "packages/gateway/src/cli.ts"), "--version"],
  },
  { name: "bridge through tsx", args: ["--import", "tsx", join(root, "packages/bridge/src/cli.ts"), "-version"] },
];

function timeOnce(target: Target): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, target.args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${target.name} failed (exit ${result.status}): ${result.stderr}`);
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

// One untimed run each warms the file system cache.
for (const target of targets) timeOnce(target);
const samples = new Map<Target, number[]>(targets.map((target) => [target, []]));
for (let run = 0; run < runs; run++) for (const target of targets) samples.get(target)!.push(timeOnce(target));

const floor = median(samples.get(targets[0]!)!);
console.log(`start-up to exit, median of ${runs} interleaved runs, node ${process.version}\n`);
console.log("| command | median ms | min ms | ratio to bare node |");
console.log("| --- | ---: | ---: | ---: |");
for (const target of targets) {
  const times = samples.get(target)!;
  const ratio = median(times) / floor;
  console.log(
    `| ${target.name} | ${median(times).toFixed(1)} | ${Math.min(...times).toFixed(1)} | ${ratio.toFixed(2)}x |`,
  );
}
