// A real redis-server on 127.0.0.1 for tests and benchmarks: a free port, its own temporary folder, append-only
// persistence (so a restart keeps what was written), no RDB snapshots. Stopped by PID through its owner;
// restart() keeps the port and the data, for outage tests.
import { Socket } from "node:net";
import { makeServerDir, requireBinary } from "../chat/server-files.ts";
import { type RunningServer, type ServerLaunch, startServer } from "../chat/server-process.ts";
import type { Teardown } from "../process.ts";

export interface RedisServer extends RunningServer {
  /** redis://127.0.0.1:PORT */
  readonly url: string;
}

/** Starts redis-server in the foreground; resolves once it answers PING. */
export async function startRedis(
  teardown: Teardown,
  /** appendfsync: "always" (the default here: a restart loses nothing) or "everysec" (Redis's own default, for benches). */
  options: { timeoutMs?: number; appendfsync?: "always" | "everysec" } = {},
): Promise<RedisServer> {
  const binary = requireBinary("redis-server", "redis-server");
  const dir = makeServerDir("redis");
  const timeoutMs = options.timeoutMs ?? 15_000;
  const spec = (port: number): ServerLaunch => ({
    name: `redis:${port}`,
    command: binary,
    args: [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--appendonly",
      "yes",
      // Every write reaches the file at once: a test that restarts Redis finds all it wrote.
      "--appendfsync",
      options.appendfsync ?? "always",
      "--save",
      "",
      "--daemonize",
      "no",
      "--protected-mode",
      "yes",
    ],
    ready: /Ready to accept connections/,
    bindFailed: /Address already in use|Could not create server TCP listening socket/,
    timeoutMs,
  });
  const server = await startServer(teardown, dir, spec, { url: "" });
  const url = `redis://127.0.0.1:${server.port}`;
  await ping(server.port, timeoutMs);
  const restart = server.restart.bind(server);
  return Object.assign(server, {
    url,
    async restart(whileDown?: () => Promise<void>) {
      await restart(whileDown);
      await ping(server.port, timeoutMs);
    },
  });
}

/** Resolves once the server answers PING with +PONG (it may log "ready" while still loading the append-only file). */
async function ping(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await pingOnce(port)) return;
    if (Date.now() > deadline) throw new Error(`redis on port ${port} did not answer PING within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function pingOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let answer = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (answer.includes("\r\n")) done(answer.startsWith("+PONG"));
    });
    socket.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
  });
}
