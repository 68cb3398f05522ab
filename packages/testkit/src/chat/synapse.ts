// A real Synapse (Matrix homeserver) on 127.0.0.1, run from the Debian sid chroot of synapse-root.ts as the chroot's
// matrix-synapse user, with sqlite, server name "localhost", open registration and rate limits lifted. Each server
// gets its own data folder inside the chroot, removed when it stops, so the cached tree stays clean.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Teardown } from "../process.ts";
import { runToExit } from "../run-to-exit.ts";
import { chownTree } from "./server-files.ts";
import { type RunningServer, type ServerLaunch, startServer } from "./server-process.ts";

export interface SynapseServer extends RunningServer {
  /** The client API base URL, e.g. http://127.0.0.1:PORT */
  readonly url: string;
  readonly serverName: string;
  /** Registers a user through the client API (m.login.dummy); resolves with its user id and access token. */
  register(username: string, password: string): Promise<{ userId: string; accessToken: string }>;
}

const LIMITLESS = "{per_second: 10000, burst_count: 10000}";

export function synapseConfig(dataDir: string, port: number, serverName: string): string {
  return `# written by @switchboard/testkit for one test server
server_name: "${serverName}"
pid_file: ${dataDir}/homeserver.pid
public_baseurl: "http://127.0.0.1:${port}/"
listeners:
  - {port: ${port}, bind_addresses: ['127.0.0.1'], type: http, tls: false, x_forwarded: false, resources: [{names: [client], compress: false}]}
database: {name: sqlite3, args: {database: ${dataDir}/homeserver.db}}
log_config: ${dataDir}/log.yaml
media_store_path: ${dataDir}/media
signing_key_path: ${dataDir}/signing.key
report_stats: false
trusted_key_servers: []
suppress_key_server_warning: true
registration_shared_secret: "test-shared-secret"
macaroon_secret_key: "test-macaroon-secret"
form_secret: "test-form-secret"
enable_registration: true
enable_registration_without_verification: true
federation_domain_whitelist: []
presence: {enabled: false}
url_preview_enabled: false
rc_message: ${LIMITLESS}
rc_registration: ${LIMITLESS}
rc_login: {address: ${LIMITLESS}, account: ${LIMITLESS}, failed_attempts: ${LIMITLESS}}
rc_joins: {local: ${LIMITLESS}, remote: ${LIMITLESS}}
rc_invites: {per_room: ${LIMITLESS}, per_user: ${LIMITLESS}, per_issuer: ${LIMITLESS}}
`;
}

// INFO for synapse.app only: its "Synapse now listening" line is how we know the server is ready.
const LOG_CONFIG = `version: 1
formatters: {precise: {format: '%(asctime)s %(name)s %(levelname)s %(message)s'}}
handlers: {console: {class: logging.StreamHandler, formatter: precise}}
loggers: {synapse.app: {level: INFO}}
root: {level: WARNING, handlers: [console]}
disable_existing_loggers: false
`;

/** Starts Synapse in the chroot at `root` (see synapseRoot); teardown stops it and removes its data. */
export async function startSynapse(
  teardown: Teardown,
  root: string,
  options: { serverName?: string; timeoutMs?: number } = {},
): Promise<SynapseServer> {
  const serverName = options.serverName ?? "localhost";
  const timeoutMs = options.timeoutMs ?? 60_000;
  const chrootId = (flag: string) =>
    execFileSync("chroot", [root, "id", flag, "matrix-synapse"], { encoding: "utf8" }).trim();
  const owner = { uid: Number(chrootId("-u")), gid: Number(chrootId("-g")) };
  // The data folder lives inside the chroot; `inside` is its path as Synapse sees it.
  mkdirSync(join(root, "srv"), { recursive: true });
  const dir = mkdtempSync(join(root, "srv", "synapse."));
  const inside = dir.slice(root.length);
  const asSynapse = (args: string[]) => ({
    command: "chroot",
    args: [`--userspec=${owner.uid}:${owner.gid}`, root, "/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HOME=/tmp"]
      .concat(["LANG=C.UTF-8", "python3", "-m", "synapse.app.homeserver", "-c", `${inside}/homeserver.yaml`])
      .concat(args),
  });

  let keysMade = false;
  const prepare = async (port: number): Promise<ServerLaunch> => {
    mkdirSync(join(dir, "media"), { recursive: true });
    writeFileSync(join(dir, "homeserver.yaml"), synapseConfig(inside, port, serverName));
    writeFileSync(join(dir, "log.yaml"), LOG_CONFIG);
    chownTree(dir, owner);
    if (!keysMade) {
      const keys = await runToExit({ ...asSynapse(["--generate-keys"]), timeoutMs });
      if (keys.code !== 0) throw new Error(`synapse --generate-keys failed (${keys.code}):\n${keys.stderr}`);
      keysMade = true;
    }
    return {
      name: `synapse:${port}`,
      ...asSynapse([]),
      ready: /Synapse now listening on TCP port/,
      bindFailed: /Address already in use|CannotListenError/,
      timeoutMs,
    };
  };

  const server = await startServer(teardown, dir, prepare, { serverName });
  const url = `http://127.0.0.1:${server.port}`;
  return Object.assign(server, {
    url,
    register: (username: string, password: string) => register(url, username, password),
  });
}

/** Client-API registration with the dummy flow: the first call opens a session, the second completes it. */
async function register(url: string, username: string, password: string) {
  const endpoint = `${url}/_matrix/client/v3/register`;
  const call = async (auth?: object) => {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username, password, inhibit_login: false, ...(auth ? { auth } : {}) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  let answer = await call();
  if (answer.status === 401) answer = await call({ type: "m.login.dummy", session: answer.body.session });
  if (answer.status !== 200) throw new Error(`registering ${username} failed: ${JSON.stringify(answer.body)}`);
  return { userId: String(answer.body.user_id), accessToken: String(answer.body.access_token) };
}
