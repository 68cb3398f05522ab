// Running the pieces: the load generator as a pinned child process, readiness probes, and waiting until servers idle.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runToExit } from "@switchboard/testkit";
import type { LoadOptions, LoadResult } from "./load.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** CPU lists for taskset (absent: no pinning), and a nice value for every process the bench starts. */
export interface Pinning {
  servers?: string;
  load?: string;
  nice?: number;
}

/** The command line that runs node with `nodeArgs` on `cpus` (taskset) at the pinning's nice value. */
export function nodeCommand(pin: Pinning, cpus: string | undefined, nodeArgs: string[]): [string, string[]] {
  const argv = [
    ...(pin.nice !== undefined ? ["nice", "-n", String(pin.nice)] : []),
    ...(cpus ? ["taskset", "-c", cpus] : []),
    process.execPath,
    ...nodeArgs,
  ];
  return [argv[0]!, argv.slice(1)];
}

export interface MeasuredLoad {
  result: LoadResult;
  /**
   * CPU used by processes other than ours while the run lasted, in % of one core: busy ticks of the whole machine minus
   * those of the servers, the load generator and this process. High values mean the numbers are disturbed.
   */
  otherCpuPercent: number;
  /** CPU time per response of the first server process (the gateway or proxy; the upstream for direct), µs. */
  serverCpuUsPerRequest: number;
}

/** Runs the load generator and measures how much CPU the rest of the machine used meanwhile. */
export async function measureLoad(pin: Pinning, options: LoadOptions, serverPids: number[]): Promise<MeasuredLoad> {
  const serversBefore = serverPids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
  const firstBefore = serverPids[0] === undefined ? 0 : cpuTicks(serverPids[0]);
  const machineBefore = machineBusyTicks();
  const selfBefore = process.cpuUsage();
  const started = Date.now();
  const result = await runLoadProcess(pin, options);
  const wallMs = Date.now() - started;
  const self = process.cpuUsage(selfBefore);
  const ours =
    (serverPids.reduce((sum, pid) => sum + cpuTicks(pid), 0) - serversBefore) * 10 +
    (result.cpuMs ?? 0) +
    (self.user + self.system) / 1000;
  const machine = (machineBusyTicks() - machineBefore) * 10;
  const firstMs = serverPids[0] === undefined ? Number.NaN : (cpuTicks(serverPids[0]) - firstBefore) * 10;
  return {
    result,
    otherCpuPercent: Math.max(0, ((machine - ours) / wallMs) * 100),
    serverCpuUsPerRequest: result.totalRequests > 0 ? (firstMs * 1000) / result.totalRequests : Number.NaN,
  };
}

/** Runs load.ts in its own process (pinned to the load core) and returns its result. */
export async function runLoadProcess(pin: Pinning, options: LoadOptions): Promise<LoadResult> {
  const nodeArgs = ["--import", "tsx", join(here, "load.ts"), JSON.stringify(options)];
  const [command, args] = nodeCommand(pin, pin.load, nodeArgs);
  const limit = options.warmupMs + options.durationMs + (options.timeoutMs ?? 10_000) + 15_000;
  const run = await runToExit({ command, args, timeoutMs: limit });
  const line = run.stdout.trim().split("\n").at(-1) ?? "";
  try {
    if (run.code !== 0)
      throw new Error(run.timedOut ? `no result within ${limit} ms` : `exit ${run.code ?? run.signal}`);
    return JSON.parse(line) as LoadResult;
  } catch (error) {
    throw new Error(`load generator failed (${String(error)}): ${run.stderr.slice(-1000)}`);
  }
}

/**
 * Sends one request until the answer is a 2xx containing `expect` (a gateway may need a health probe first).
 * Returns undefined on success, otherwise the last problem seen.
 */
export async function probe(
  url: string,
  body: string,
  headers: Record<string, string>,
  expect: string,
  timeoutMs: number,
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  let problem = "no answer";
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
        signal: AbortSignal.timeout(5_000),
      });
      const text = await response.text();
      if (response.ok && text.includes(expect)) return undefined;
      problem = `HTTP ${response.status} ${text.slice(0, 200).replace(/\s+/g, " ")}`;
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return problem;
}

/** Busy clock ticks (1/100 s) of the whole machine: every CPU's user, nice, system, irq, softirq and steal time. */
function machineBusyTicks(): number {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return user + nice + system + irq + softirq + steal;
  } catch {
    return Number.NaN;
  }
}

export function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Waits (at most maxMs) until the processes use under ~5 % of a core, so one run does not leak into the next. */
export async function settle(pids: number[], maxMs = 10_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let before = pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = pids.reduce((sum, pid) => sum + cpuTicks(pid), 0);
    // Clock ticks are 1/100 s: one tick in 200 ms is 5 %.
    if (now - before <= 1) return;
    before = now;
  }
}
