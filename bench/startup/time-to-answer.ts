// One timed start: spawn a long-running process, then ask its health URL again and again until an HTTP answer comes
// back; the times are spawn → the first connection accepted, and spawn → the first answer (they differ when the
// process listens and then keeps its event loop busy, e.g. loading more modules). The process is then stopped (SIGTERM, SIGKILL after a grace period) and
// awaited before the next run, untimed, so that runs never overlap and the port is free again.
// Beside the wall-clock times, the CPU time the process (all its threads) had used when the answer came: unlike the
// wall clock, other work on a shared machine barely changes it.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { request } from "node:http";

/** A start that never answers within this is a failure, not a slow run. */
const ANSWER_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;
/** Between two refused connections; small against the times measured, and the same for every target. */
const RETRY_MS = 2;

export interface ListeningTarget {
  name: string;
  args: string[];
  /** The URL asked; any HTTP answer counts (a refused or reset connection does not). */
  url: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface StartTimes {
  acceptedMs: number;
  answeredMs: number;
  /** CPU time of the process up to the answer (NaN without Linux's /proc). */
  cpuMs: number;
}

/** The CPU time the threads of `pid` still running have used (Linux: each thread's schedstat, in nanoseconds). */
function cpuMsOf(pid: number | undefined): number {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    }
    return ns / 1e6;
  } catch {
    return Number.NaN;
  }
}

/** Resolves to the time the connection was accepted and whether an answer came (false: refused or reset). */
function ask(url: string, started: bigint): Promise<{ acceptedMs: number; answered: boolean }> {
  return new Promise((resolve) => {
    let acceptedMs = Number.NaN;
    const req = request(url, { agent: false, headers: { connection: "close" } }, (res) => {
      res.resume();
      resolve({ acceptedMs, answered: true });
    });
    req.on("socket", (socket) => socket.once("connect", () => (acceptedMs = elapsedMs(started))));
    req.on("error", () => resolve({ acceptedMs, answered: false }));
    req.end();
  });
}

const elapsedMs = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill("SIGTERM");
  const killer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
  await exited(child);
  clearTimeout(killer);
}

/** Milliseconds from spawn to the first connection and answer on `target.url`. Throws with the output if none came. */
export async function timeToAnswer(target: ListeningTarget): Promise<StartTimes> {
  let output = "";
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, target.args, {
    cwd: target.cwd,
    env: target.env ?? process.env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  try {
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    for (;;) {
      const attempt = await ask(target.url, started);
      if (attempt.answered) {
        return { acceptedMs: attempt.acceptedMs, answeredMs: elapsedMs(started), cpuMs: cpuMsOf(child.pid) };
      }
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${target.name} exited (${child.exitCode ?? child.signalCode}) before answering:\n${output}`);
      }
      if (Date.now() > deadline) throw new Error(`${target.name} did not answer ${target.url} in time:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  } finally {
    await stop(child);
  }
}
