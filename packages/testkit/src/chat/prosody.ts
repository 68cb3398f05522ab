// A real Prosody (XMPP) on 127.0.0.1 with a MUC component, configured for tests: no TLS, PLAIN allowed on loopback
// (SCRAM's client-side PBKDF2 costs ~1 s per login in JS), a low SCRAM iteration count for clients that insist on it,
// rooms created by whoever joins first. One per test file; restart() keeps the port and the data for outage tests.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Teardown } from "../process.ts";
import { runToExit } from "../run-to-exit.ts";
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

export interface ProsodyOptions {
  /** The XMPP domain users live on; default "localhost". */
  domain?: string;
  /** The MUC component's domain; default "conference.<domain>". */
  mucDomain?: string;
  /** Messages a room replays to a joining occupant (Prosody's default is 20; 0 turns history off). */
  mucHistory?: number;
  /** Users registered before the server starts. */
  users?: { username: string; password: string }[];
  /** Bound on start-up, restart and each prosodyctl run; default 15 s. */
  timeoutMs?: number;
  /**
   * Offer STARTTLS with a self-signed certificate for the domain (made with openssl), so clients can test their TLS
   * settings; default false (no TLS offered).
   */
  tls?: boolean;
}

export interface ProsodyServer extends RunningServer {
  readonly domain: string;
  readonly mucDomain: string;
  /** Registers a user with prosodyctl (works while the server runs); resolves with the bare JID. */
  createUser(username: string, password: string): Promise<string>;
}

export function prosodyConfig(dir: string, port: number, options: Required<Omit<ProsodyOptions, "users">>): string {
  return `-- written by @switchboard/testkit for one test server
pidfile = "${dir}/prosody.pid"
data_path = "${dir}/data"
certificates = "${dir}/certs"
plugin_paths = {}
interfaces = { "127.0.0.1" }
c2s_ports = { ${port} }
c2s_direct_tls_ports = {}
s2s_ports = {}
component_ports = {}
http_ports = {}
https_ports = {}
modules_enabled = { "roster", "saslauth", "disco", "ping", "posix"${options.tls ? ', "tls"' : ""} }
modules_disabled = { "s2s"${options.tls ? "" : ', "tls"'} }
c2s_require_encryption = false
s2s_require_encryption = false
allow_unencrypted_plain_auth = true
authentication = "internal_hashed"
-- Applies to users registered from now on; Prosody warns that it is below RFC 5802's 4096.
default_iteration_count = 1
storage = "internal"
log = { { levels = { min = "info" }, to = "console" } }
limits = { c2s = { rate = "1000mb/s" } }
VirtualHost "${options.domain}"
Component "${options.mucDomain}" "muc"
  restrict_room_creation = false
  muc_room_default_public = true
  muc_room_locking = false
  muc_room_default_history_length = ${options.mucHistory}
  max_history_messages = ${Math.max(options.mucHistory, 1)}
`;
}

/** Starts Prosody in the foreground in its own process group; teardown stops it even if the test fails. */
export async function startProsody(teardown: Teardown, options: ProsodyOptions = {}): Promise<ProsodyServer> {
  const binary = requireBinary("prosody", "prosody");
  const prosodyctl = requireBinary("prosodyctl", "prosody");
  const domain = options.domain ?? "localhost";
  const settings = {
    domain,
    mucDomain: options.mucDomain ?? `conference.${domain}`,
    mucHistory: options.mucHistory ?? 20,
    timeoutMs: options.timeoutMs ?? 15_000,
    tls: options.tls ?? false,
  };
  const dir = makeServerDir("prosody");
  const configPath = join(dir, "prosody.cfg.lua");
  // As root, Prosody and prosodyctl run as the "prosody" user, who must own the data.
  const owner = runningAsRoot() ? systemUser("prosody") : undefined;

  const spec = (port: number): ServerLaunch => {
    mkdirSync(join(dir, "data"), { recursive: true });
    mkdirSync(join(dir, "certs"), { recursive: true });
    if (settings.tls && !existsSync(join(dir, "certs", `${domain}.crt`)))
      selfSignedCertificate(join(dir, "certs"), domain);
    writeFileSync(configPath, prosodyConfig(dir, port, settings), { mode: 0o644 });
    if (owner) chownTree(dir, owner);
    const run = asUser("prosody", binary, ["--config", configPath, "-F"]);
    return {
      name: `prosody:${port}`,
      ...run,
      ready: new RegExp(`Activated service 'c2s' on \\[127\\.0\\.0\\.1\\]:${port}\\b`),
      // Prosody keeps running without the listener; launch() stops it.
      bindFailed: /Failed to open server port|Activated service 'c2s' on no ports/,
      timeoutMs: settings.timeoutMs,
    };
  };

  const createUser = async (username: string, password: string): Promise<string> => {
    const run = await runToExit({
      command: prosodyctl,
      args: ["--config", configPath, "register", username, domain, password],
      timeoutMs: settings.timeoutMs,
    });
    if (run.code !== 0) {
      throw new Error(`prosodyctl register ${username}@${domain} failed (${run.code}):\n${run.stdout}${run.stderr}`);
    }
    return `${username}@${domain}`;
  };

  let usersCreated = false;
  const prepare = async (port: number): Promise<ServerLaunch> => {
    const launchSpec = spec(port);
    // Once only: a retry on another port, or a restart, keeps the data directory and its users.
    if (!usersCreated) for (const user of options.users ?? []) await createUser(user.username, user.password);
    usersCreated = true;
    return launchSpec;
  };
  return startServer(teardown, dir, prepare, { domain, mucDomain: settings.mucDomain, createUser });
}
