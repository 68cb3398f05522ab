import { type ChildProcess, spawn } from "node:child_process";
import { waitForPort } from "./ports.ts";
import { withTimeout } from "./wait.ts";

/** What tells us a started process is ready: a TCP port accepting connections, or a line in its output. */
export type Readiness = { port: number; host?: string } | { line: RegExp | string };

export interface StartOptions {
  command: string;
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Omit to return as soon as the process is spawned. */
  ready?: Readiness;
  timeoutMs?: number;
  /** Used in error messages and logs. */
  name?: string;
}

/** Anything with node:test's `after` hook (a TestContext or the module-level `after`). */
export interface Teardown {
  after(fn: () => Promise<void> | void): void;
}

const live = new Set<ManagedProcess>();
// Last line of defence: whatever a test forgot is killed when the test process exits.
process.once("exit", () => {
  for (const child of live) child.killGroup("SIGKILL");
});

/** A child process started for a test: its output is kept, and it is stopped by PID (its whole group). */
export class ManagedProcess {
  readonly name: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #output = "";
  #lineWaiters = new Set<{ pattern: RegExp | string; resolve: (line: string) => void }>();
  #exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** The output line that made it ready, when readiness was a line. */
  readyLine: string | undefined;

  constructor(
    readonly child: ChildProcess,
    name: string,
  ) {
    this.name = name;
    live.add(this);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      this.#output += text;
      if (this.#output.length > 1_000_000) this.#output = this.#output.slice(-500_000);
      for (const waiter of this.#lineWaiters) {
        const line = matchingLine(this.#output, waiter.pattern);
        if (line !== undefined) {
          this.#lineWaiters.delete(waiter);
          waiter.resolve(line);
        }
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        // "exit" can come before the last output is read; "close" comes after it, unless a child of the process
        // still holds the pipes, so it is waited for a little while at most.
        const settle = () => {
          clearTimeout(timer);
          this.#exitInfo = { code, signal };
          live.delete(this);
          resolve({ code, signal });
        };
        const timer = setTimeout(settle, 2_000);
        child.once("close", settle);
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /**
   * The first http(s)://host:port in the ready line: a child told to listen on port 0 reports the port it got there,
   * so tests never race each other for a port picked in advance.
   */
  get listeningUrl(): string | undefined {
    return this.readyLine?.match(/https?:\/\/(?:\[[^\]]+\]|[\w.-]+):\d+/)?.[0];
  }

  /** Everything the process wrote to stdout and stderr so far. */
  get output(): string {
    return this.#output;
  }

  get running(): boolean {
    return this.#exitInfo === undefined;
  }

  /** Resolves with the first output line matching `pattern` (already written or still to come). */
  waitForLine(pattern: RegExp | string, timeoutMs = 15_000): Promise<string> {
    const seen = matchingLine(this.#output, pattern);
    if (seen !== undefined) return Promise.resolve(seen);
    const found = new Promise<string>((resolve, reject) => {
      const waiter = { pattern, resolve };
      this.#lineWaiters.add(waiter);
      this.exited.then(({ code, signal }) => {
        if (!this.#lineWaiters.delete(waiter)) return;
        reject(new Error(`${this.name} exited (${signal ?? code}) before printing ${pattern}:\n${this.tail()}`));
      });
    });
    return withTimeout(found, timeoutMs, `${this.name} printing ${pattern}`).catch((error: Error) => {
      throw new Error(`${error.message}\n--- ${this.name} output ---\n${this.tail()}`);
    });
  }

  /**
   * Every output line matching `pattern`, once the first has arrived. A service that writes its log at the end of an
   * event-loop turn can reach a test through a socket before the line that turn logged, so a test reads lines this way.
   */
  async waitForLines(pattern: RegExp | string, timeoutMs = 15_000): Promise<string[]> {
    await this.waitForLine(pattern, timeoutMs);
    return this.#output
      .split("\n")
      .filter((line) => (typeof pattern === "string" ? line.includes(pattern) : pattern.test(line)));
  }

  /** The last lines of output, for error messages. */
  tail(lines = 40): string {
    return this.#output.split("\n").slice(-lines).join("\n");
  }

  killGroup(signal: NodeJS.Signals): void {
    if (!this.running || this.pid < 0) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      this.child.kill(signal);
    }
  }

  /** SIGTERM, then SIGKILL after graceMs; resolves once the process is gone. */
  async stop(graceMs = 5_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (!this.running) return this.exited;
    this.killGroup("SIGTERM");
    const timer = setTimeout(() => this.killGroup("SIGKILL"), graceMs);
    const info = await this.exited;
    clearTimeout(timer);
    // Children of the process (its group) that outlived it are not left behind either.
    try {
      process.kill(-this.pid, "SIGKILL");
    } catch {}
    return info;
  }
}

function matchingLine(output: string, pattern: RegExp | string): string | undefined {
  for (const line of output.split("\n")) {
    if (typeof pattern === "string" ? line.includes(pattern) : pattern.test(line)) return line;
  }
  return undefined;
}

/**
 * Starts a process in its own process group and waits until it is ready. With `teardown`, the process is stopped when
 * the test ends, passed or failed; if it never gets ready, it is stopped at once and the error carries its output.
 */
export async function startProcess(options: StartOptions, teardown?: Teardown): Promise<ManagedProcess> {
  const name = options.name ?? options.command;
  const child = spawn(options.command, options.args ?? [], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const managed = new ManagedProcess(child, name);
  teardown?.after(async () => {
    await managed.stop();
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", (error) => reject(new Error(`could not start ${name}: ${error.message}`)));
  });
  try {
    await spawned;
    const timeoutMs = options.timeoutMs ?? 15_000;
    const ready = options.ready;
    if (ready && "port" in ready) {
      const exitedEarly = managed.exited.then(({ code, signal }) => {
        throw new Error(`${name} exited (${signal ?? code}) before listening on port ${ready.port}`);
      });
      await Promise.race([waitForPort(ready.port, { host: ready.host, timeoutMs }), exitedEarly]);
    } else if (ready) {
      managed.readyLine = await managed.waitForLine(ready.line, timeoutMs);
    }
  } catch (error) {
    await managed.stop(1_000);
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n--- ${name} (pid ${managed.pid}) output ---\n${managed.tail()}`);
  }
  return managed;
}

/** Command and arguments that run a TypeScript file with Node and tsx, as the services' own bins do. */
export function tsNode(script: string, args: string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", "tsx", script, ...args] };
}
