// A real Mumble server (murmurd from Debian's mumble-server) on 127.0.0.1, configured for tests: its own ini, sqlite
// database and self-signed certificate in a temp folder, no text-message throttling unless asked, no Bonjour or
// public registration. One per test file; restart() keeps the port, the database and the channels for outage tests.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Teardown } from "../process.ts";
import {
  asUser,
  chownTree,
  makeServerDir,
  requireBinary,
  runningAsRoot,
  selfSignedCertificate,
  systemUser,
} from "./server-files.ts";
import { type RunningServer, type ServerLaunch, startServer } from "./server-process.ts";

export interface MurmurOptions {
  /** The server password every client must give (Mumble's `serverpassword`); default none. */
  password?: string;
  /** Characters a text message may hold (`textmessagelength`, sent to clients in ServerConfig); default 5000. */
  messageLength?: number;
  /** Text messages a user may send per second, and in a burst (`messagelimit`/`messageburst`); default 1000. */
  messageLimit?: number;
  /** Bound on start-up and restart; default 15 s. */
  timeoutMs?: number;
}

export interface MurmurServer extends RunningServer {
  /** The certificate (PEM) the server presents, for clients that verify it (CN and SAN "localhost"). */
  readonly certificatePath: string;
  /** The password of SuperUser, Mumble's administrator (creates channels through a client). */
  readonly superUserPassword: string;
}

export function murmurConfig(dir: string, port: number, options: MurmurOptions): string {
  const limit = options.messageLimit ?? 1000;
  return `; written by @switchboard/testkit for one test server
database=${dir}/murmur.sqlite
host=127.0.0.1
port=${port}
serverpassword=${options.password ?? ""}
users=100
textmessagelength=${options.messageLength ?? 5000}
messagelimit=${limit}
messageburst=${limit}
allowping=false
bonjour=false
welcometext=
sslCert=${dir}/localhost.crt
sslKey=${dir}/localhost.key
; the default PBKDF2 benchmark costs a second at each first start
kdfiterations=1000
`;
}

const SUPERUSER_PASSWORD = /Password for 'SuperUser' set to '([^']+)'/;

/** Starts murmurd in the foreground in its own process group; teardown stops it (by PID) even if the test fails. */
export async function startMurmur(teardown: Teardown, options: MurmurOptions = {}): Promise<MurmurServer> {
  const binary = requireBinary("murmurd", "mumble-server");
  const dir = makeServerDir("murmur");
  const configPath = join(dir, "murmur.ini");
  // As root, murmurd switches to the mumble-server user by itself (and cannot then open a root-owned database);
  // running it as that user from the start keeps the PID ours and the folder its own.
  const owner = runningAsRoot() ? systemUser("mumble-server") : undefined;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const prepare = (port: number): ServerLaunch => {
    if (!existsSync(join(dir, "localhost.crt"))) selfSignedCertificate(dir, "localhost");
    writeFileSync(configPath, murmurConfig(dir, port, options), { mode: 0o644 });
    if (owner) chownTree(dir, owner);
    return {
      name: `murmurd:${port}`,
      ...asUser("mumble-server", binary, ["-ini", configPath, "-fg"]),
      ready: new RegExp(`Server listening on 127\\.0\\.0\\.1:${port}\\b`),
      bindFailed: /TCP Listen on .* failed/,
      timeoutMs,
    };
  };
  const server = await startServer(teardown, dir, prepare, { certificatePath: join(dir, "localhost.crt") });
  // A new database prints SuperUser's generated password once; restarts keep the database and so the password.
  const password = SUPERUSER_PASSWORD.exec(server.output)?.[1];
  if (password === undefined) {
    await server.stop();
    throw new Error(`murmurd did not say SuperUser's password:\n${server.output.slice(-2000)}`);
  }
  return Object.assign(server, { superUserPassword: password });
}
