// A real ngIRCd on 127.0.0.1, configured for tests: no DNS/ident/PAM lookups (fast registration), no connection or
// flood limits, channels creatable by anyone. One per test file; restart() keeps the port for outage tests.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Teardown } from "../process.ts";
import { makeServerDir, requireBinary } from "./server-files.ts";
import { type RunningServer, type ServerLaunch, startServer } from "./server-process.ts";

export interface NgircdOptions {
  /** The server's name in its replies; default irc.test.local. */
  serverName?: string;
  /** Extra lines appended to the [Global] section (e.g. `Password = secret`). */
  globalConfig?: string[];
  /** Bound on start-up and restart; default 15 s. */
  timeoutMs?: number;
}

export interface NgircdServer extends RunningServer {
  readonly serverName: string;
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

  return startServer(teardown, dir, spec, { serverName: options.serverName ?? "irc.test.local" });
}
