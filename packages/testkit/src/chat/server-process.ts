// Starting a real server on a port we choose: ngIRCd and Prosody both need the port in their config, so we pick a free
// one, start, and pick again if another process took it in between (parallel test files do that).
import { freePort } from "../ports.ts";
import { type ManagedProcess, startProcess, type Teardown } from "../process.ts";
import { removeServerDir } from "./server-files.ts";

export interface ServerLaunch {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** A log line that says the server accepts connections. */
  ready: RegExp;
  /** A log line that says the port was taken (the server may exit or keep running without a listener). */
  bindFailed: RegExp;
  timeoutMs: number;
}

export class PortTakenError extends Error {}

/** Starts the server once; rejects with PortTakenError when its log says the port was in use. */
export async function launch(spec: ServerLaunch): Promise<ManagedProcess> {
  const server = await startProcess({ name: spec.name, command: spec.command, args: spec.args, env: spec.env });
  const either = new RegExp(`${spec.ready.source}|${spec.bindFailed.source}`);
  try {
    const line = await server.waitForLine(either, spec.timeoutMs);
    if (spec.bindFailed.test(line)) throw new PortTakenError(`${spec.name}: port in use\n${server.tail()}`);
    return server;
  } catch (error) {
    await server.stop(1_000);
    if (error instanceof PortTakenError || spec.bindFailed.test(server.output)) {
      throw new PortTakenError(`${spec.name}: port in use\n${server.tail()}`);
    }
    throw error;
  }
}

/**
 * Picks a free port, prepares the server for it (writes its config) and starts it; retries with a new port when the
 * chosen one was taken before the server could bind it.
 */
export async function launchOnFreePort(
  prepare: (port: number) => ServerLaunch | Promise<ServerLaunch>,
  attempts = 5,
): Promise<{ port: number; process: ManagedProcess }> {
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = await freePort();
    try {
      return { port, process: await launch(await prepare(port)) };
    } catch (error) {
      if (!(error instanceof PortTakenError)) throw error;
      lastError = error;
    }
  }
  throw new Error(`could not find a free port after ${attempts} attempts`, { cause: lastError });
}

/** A real server started by a test: where it listens, its current process, and a restart on the same port. */
export interface RunningServer {
  readonly host: string;
  readonly port: number;
  /** The running server's PID (changes on restart). */
  readonly pid: number;
  /** Everything the current server process logged. */
  readonly output: string;
  /**
   * Stops the server and starts it again on the same port with the same config and data (clients see a drop).
   * `whileDown`, when given, runs while the server is stopped (an outage that lasts as long as the test needs).
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /** Stops the server (by PID) and removes its directory; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts a server on a free port (see launchOnFreePort) and gives it an owner: `teardown` stops it and removes its
 * directory `dir` whatever the test's outcome; `dir` is removed at once if it never starts. `restart()` prepares
 * again on the same port.
 */
export async function startServer<Extra extends object>(
  teardown: Teardown,
  dir: string,
  prepare: (port: number) => ServerLaunch | Promise<ServerLaunch>,
  /** Plain values and functions the handle carries besides (a server name, a way to add users...). */
  extra: Extra,
): Promise<RunningServer & Extra> {
  let current: ManagedProcess | undefined;
  let port: number;
  let stopped = false;
  try {
    ({ port, process: current } = await launchOnFreePort(prepare));
  } catch (error) {
    removeServerDir(dir);
    throw error;
  }
  const server: RunningServer & Extra = {
    ...extra,
    host: "127.0.0.1",
    port,
    get pid() {
      return current?.pid ?? -1;
    },
    get output() {
      return current?.output ?? "";
    },
    async restart(whileDown?: () => Promise<void>) {
      if (stopped) throw new Error(`${dir}: the server was stopped; start a new one`);
      await current?.stop();
      current = undefined;
      await whileDown?.();
      current = await launch(await prepare(port));
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await current?.stop();
      removeServerDir(dir);
    },
  };
  teardown.after(() => server.stop());
  return server;
}
