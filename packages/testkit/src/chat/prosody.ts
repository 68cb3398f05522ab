// A real Prosody (XMPP) on 127.0.0.1 with a MUC component, configured for tests: no TLS, PLAIN allowed on loopback
// (SCRAM's client-side PBKDF2 costs ~1 s per login in JS), a low SCRAM iteration count for clients that insist on it,
// rooms created by whoever joins first. One per test file; restart() keeps the port and the data for outage tests.
// With `httpUpload`, it also offers XEP-0363 HTTP File Upload (Prosody 0.12's mod_http_file_share) as the component
// upload.<domain>, served over plain HTTP on a second free 127.0.0.1 port.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../ports.ts";
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
  /**
   * Offer HTTP File Upload (XEP-0363) on the component upload.<domain>, files up to `maxFileSize` bytes (default
   * 1 MiB; Prosody's own default is 10 MiB); default off, so other tests' servers are unchanged.
   */
  httpUpload?: boolean | { maxFileSize?: number };
}

/** The upload service of a server started with `httpUpload`. */
export interface ProsodyUploads {
  /** The component's JID, e.g. "upload.localhost". */
  readonly domain: string;
  /** The HTTP base its slots' URLs start with, e.g. "http://127.0.0.1:40123/". */
  readonly baseUrl: string;
  readonly maxFileSize: number;
}

export interface ProsodyServer extends RunningServer {
  readonly domain: string;
  readonly mucDomain: string;
  /** Set when started with `httpUpload`. */
  readonly uploads: ProsodyUploads | undefined;
  /** Registers a user with prosodyctl (works while the server runs); resolves with the bare JID. */
  createUser(username: string, password: string): Promise<string>;
}

type ConfigOptions = Required<Omit<ProsodyOptions, "users" | "httpUpload">> & {
  /** The HTTP port and the upload limit, when the server offers HTTP File Upload. */
  uploads?: { httpPort: number; maxFileSize: number };
};

export function prosodyConfig(dir: string, port: number, options: ConfigOptions): string {
  const uploads = options.uploads;
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
${httpListener(uploads?.httpPort, options.domain)}https_ports = {}
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
${uploads === undefined ? "" : uploadComponent(options.domain, uploads.maxFileSize)}`;
}

/**
 * No HTTP listener, or one on 127.0.0.1:`port` whose URLs (the upload slots') name that address; Prosody routes by
 * the Host header, and 127.0.0.1 is no host of its own, so requests go to the upload component's host.
 */
function httpListener(port: number | undefined, domain: string): string {
  if (port === undefined) return "http_ports = {}\n";
  return `http_ports = { ${port} }
http_interfaces = { "127.0.0.1" }
http_external_url = "http://127.0.0.1:${port}/"
http_default_host = "upload.${domain}"
`;
}

/** mod_http_file_share as a component: a subdomain, so the host's disco#items lists it (as on real servers). */
function uploadComponent(domain: string, maxFileSize: number): string {
  return `Component "upload.${domain}" "http_file_share"
  http_file_share_size_limit = ${maxFileSize}
  http_file_share_daily_quota = ${maxFileSize * 1000}
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
  const httpUpload = options.httpUpload ?? false;
  const maxFileSize = (typeof httpUpload === "object" ? httpUpload.maxFileSize : undefined) ?? 1_048_576;
  // The HTTP port goes with the client port: kept on restart, chosen again when a launch moves to another port.
  let http: { c2sPort: number; httpPort: number } | undefined;
  const dir = makeServerDir("prosody");
  const configPath = join(dir, "prosody.cfg.lua");
  // As root, Prosody and prosodyctl run as the "prosody" user, who must own the data.
  const owner = runningAsRoot() ? systemUser("prosody") : undefined;

  const spec = (port: number, httpPort: number | undefined): ServerLaunch => {
    const uploads = httpPort === undefined ? undefined : { httpPort, maxFileSize };
    mkdirSync(join(dir, "data"), { recursive: true });
    mkdirSync(join(dir, "certs"), { recursive: true });
    if (settings.tls && !existsSync(join(dir, "certs", `${domain}.crt`)))
      selfSignedCertificate(join(dir, "certs"), domain);
    writeFileSync(configPath, prosodyConfig(dir, port, { ...settings, uploads }), { mode: 0o644 });
    if (owner) chownTree(dir, owner);
    const run = asUser("prosody", binary, ["--config", configPath, "-F"]);
    return {
      name: `prosody:${port}`,
      ...run,
      // Prosody opens its HTTP port before the client port, so this line comes once both listen.
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
    if (httpUpload !== false && http?.c2sPort !== port) http = { c2sPort: port, httpPort: await freePort() };
    const launchSpec = spec(port, http?.httpPort);
    // Once only: a retry on another port, or a restart, keeps the data directory and its users.
    if (!usersCreated) for (const user of options.users ?? []) await createUser(user.username, user.password);
    usersCreated = true;
    return launchSpec;
  };
  const server = await startServer(teardown, dir, prepare, {
    domain,
    mucDomain: settings.mucDomain,
    uploads: undefined as ProsodyUploads | undefined,
    createUser,
  });
  if (http !== undefined) {
    server.uploads = { domain: `upload.${domain}`, baseUrl: `http://127.0.0.1:${http.httpPort}/`, maxFileSize };
  }
  return server;
}
