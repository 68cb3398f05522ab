// The real bin as a child process on ports it picks itself: every BindAddress may use port 0, and the addresses are
// read from the "listening on" log lines, so no port is chosen early and raced for by tests running in parallel.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ManagedProcess, startProcess, type Teardown } from "@switchboard/testkit";

export const BIN = fileURLToPath(new URL("../bin/switchboard-bridge.cjs", import.meta.url));

/** "<account> listening on http://..." (api accounts; a rocketchat account's WebhookBindAddress). */
const LISTENING = /([a-z][a-z0-9]*\.[^\s"]+) listening on (http:\/\/[^\s"]+)/g;

export interface BridgeProcess {
  process: ManagedProcess;
  /** Base URL of an account that listens (`api.<name>`...) as the child logged it. */
  url(account: string): string;
}

/** The accounts' addresses from the child's output (the lines come before "bridge started"). */
function listeningUrls(output: string): Map<string, string> {
  const urls = new Map<string, string>();
  for (const match of output.matchAll(LISTENING)) urls.set(match[1] ?? "", match[2] ?? "");
  return urls;
}

export interface BridgeProcessOptions {
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Where the config is written; a fresh temporary folder (removed afterwards) by default. */
  dir?: string;
  /** The config file's name in that folder. */
  file?: string;
  /** Passes the config with -conf (default) or relies on ./matterbridge.toml in the working directory. */
  confFlag?: boolean;
}

export async function startBridgeProcess(
  toml: string,
  teardown: Teardown,
  options: BridgeProcessOptions = {},
): Promise<BridgeProcess> {
  let dir = options.dir;
  if (dir === undefined) {
    const made = mkdtempSync(join(tmpdir(), "bridge-proc-"));
    teardown.after(() => rmSync(made, { recursive: true, force: true }));
    dir = made;
  }
  const path = join(dir, options.file ?? "matterbridge.toml");
  writeFileSync(path, toml);
  const conf = options.confFlag === false ? [] : ["-conf", path];
  const child = await startProcess(
    {
      command: process.execPath,
      args: [BIN, ...conf, ...(options.args ?? [])],
      cwd: dir,
      env: options.env ?? process.env,
      ready: { line: "bridge started" },
      name: "bridge",
    },
    teardown,
  );
  const urls = listeningUrls(child.output);
  return {
    process: child,
    url(account: string) {
      const url = urls.get(account);
      if (url === undefined) throw new Error(`${account} did not log where it listens:\n${child.tail()}`);
      return url;
    },
  };
}
