// A real ngIRCd on 127.0.0.1, configured for tests: no DNS/ident/PAM lookups (fast registration), no connection or
// flood limits, channels creatable by anyone. One per test file; restart() keeps the port for outage tests.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ManagedProcess, Teardown } from "../process.ts";
import { makeServerDir, removeServerDir, requireBinary } from "./server-files.ts";
import { launch, launchOnFreePort, type ServerLaunch } from "./server-process.ts";

export interface NgircdOptions {
  /** The server's name in its replies; default irc.test.local. */
  serverName?: string;
  /** Extra lines appended to the [Global] section (e.g. `Password = secret`). */
  globalConfig?: string[];
  /** Bound on start-up and restart; default 15 s. */
  timeoutMs?: number;
}

export interface NgircdServer {
  readonly host: string;
  readonly port: number;
  readonly serverName: string;
  /** The running server's PID (changes on restart). */
  readonly pid: number;
  /** Everything the current server process logged. */
  readonly output: string;
  /** Stops the server and starts it again on the same port with the same config (clients see a disconnect). */
  restart(): Promise<void>;
  /** Stops the server (by PID) and removes its directory; safe to call twice. */
  stop(): Promise<void>;
}

export function ngircdConfig(port: number, options: NgircdOptions = {}): string {
  return `[Global]
Name = ${options.serverName ?? "irc.test.local"}
Info = Switchboard test server
AdminInfo1 = test
AdminInfo2 = test
AdminEMail = test@localhost
Listen = 127.0.0.1
Ports = ${port}
MotdPhrase = "test"
${(options.globalConfig ?? []).join("\n")}
[Limits]
# 0 = unlimited: a bridge and several test users all connect from 127.0.0.1.
MaxConnections = 0
MaxConnectionsIP = 0
MaxJoins = 0
MaxNickLength = 30
MaxListSize = 1000
# 0 disables the per-command penalty (flood throttling); ngIRCd warns that this is "not recommended".
MaxPenaltyTime = 0
PingTimeout = 120
PongTimeout = 60
[Options]
DNS = no
Ident = no
PAM = no
MorePrivacy = no
OperCanUseMode = yes
`;
}

/** Starts ngIRCd in the foreground in its own process group; teardown stops it even if the test fails. */
export async function startNgircd(teardown: Teardown, options: NgircdOptions = {}): Promise<NgircdServer> {
  const binary = requireBinary("ngircd", "ngircd");
  const dir = makeServerDir("ngircd");
  const configPath = join(dir, "ngircd.conf");
  const timeoutMs = options.timeoutMs ?? 15_000;
  const spec = (port: number): ServerLaunch => {
    writeFileSync(configPath, ngircdConfig(port, options), { mode: 0o644 });
    // As root, ngIRCd switches to "nobody" by itself after reading its config (ServerUID).
    return {
      name: `ngircd:${port}`,
      command: binary,
      args: ["--nodaemon", "--config", configPath],
      ready: new RegExp(`Now listening on \\[127\\.0\\.0\\.1\\]:${port}\\b`),
      bindFailed: /Can't bind socket|isn't listening on a single port/,
      timeoutMs,
    };
  };

  let current: ManagedProcess | undefined;
  let port: number;
  let stopped = false;
  try {
    ({ port, process: current } = await launchOnFreePort(spec));
  } catch (error) {
    removeServerDir(dir);
    throw error;
  }

  const handle: NgircdServer = {
    host: "127.0.0.1",
    get port() {
      return port;
    },
    serverName: options.serverName ?? "irc.test.local",
    get pid() {
      return current?.pid ?? -1;
    },
    get output() {
      return current?.output ?? "";
    },
    async restart() {
      if (stopped) throw new Error("ngircd was stopped; start a new one");
      await current?.stop();
      current = undefined;
      current = await launch(spec(port));
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await current?.stop();
      removeServerDir(dir);
    },
  };
  teardown.after(() => handle.stop());
  return handle;
}
